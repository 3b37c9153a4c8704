package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/proctree"
)

// One shared browser per test binary keeps the suite lean on two cores;
// tests open their own context (and so their own cookies and storage).
var (
	shared     *Browser
	srv        *httptest.Server
	routesMu   sync.Mutex
	testRoutes = map[string]http.HandlerFunc{}
)

// route registers a handler on the shared fixture server; call it from init
// in a _test.go file. Everything else is served from testdata/.
func route(pattern string, h http.HandlerFunc) {
	routesMu.Lock()
	defer routesMu.Unlock()
	if _, dup := testRoutes[pattern]; dup {
		panic("duplicate test route " + pattern)
	}
	testRoutes[pattern] = h
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	mux := http.NewServeMux()
	for p, h := range testRoutes {
		mux.HandleFunc(p, h)
	}
	mux.Handle("/", noCache(http.FileServer(http.Dir("testdata"))))
	srv = httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Launch(context.Background(), Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine tests need Chromium:", err)
		_ = ctx
		return 1
	}
	shared = b
	code := m.Run()
	if err := shared.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "closing the shared browser:", err)
		code = 1
	}
	// The suite must leave no Chromium behind: look for any descendant
	// process of this test binary.
	if left := proctree.Descendants(os.Getpid()); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d process(es) survived the engine tests: %v\n", len(left), left)
		code = 1
	}
	return code
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// newTestPage opens a page in a fresh context of the shared browser and
// closes both when the test ends.
func newTestPage(t testing.TB) *Page {
	t.Helper()
	ctx := context.Background()
	c, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testCtx returns a context bounded for one test step.
func testCtx(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// fixtureURL returns the shared server's URL for a testdata path.
func fixtureURL(path string) string { return srv.URL + "/" + path }
