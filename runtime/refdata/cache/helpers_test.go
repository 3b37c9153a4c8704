package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/internal/refdatatest"
)

// testOptions is [refdatatest.Options] with a fresh database path.
func testOptions(t testing.TB, keys ...*refdata.PrivateKey) Options {
	t.Helper()
	return Options{Options: refdatatest.Options(keys...), Path: filepath.Join(t.TempDir(), "cache", "refdata.db")}
}

func openStore(t testing.TB, o Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustSync(t testing.TB, s *Store, name, src string, o SyncOptions) *SyncResult {
	t.Helper()
	res, err := s.Sync(context.Background(), name, src, o)
	if err != nil {
		t.Fatalf("sync %s: %v", src, err)
	}
	return res
}

// bundleServer serves archives by path; a route may cut the body short.
type bundleServer struct {
	mu     sync.Mutex
	routes map[string]route
}

type route struct {
	body []byte
	// cut > 0 sends only the first cut bytes: with lie, under a
	// Content-Length that promises all of them; without, as the whole body.
	cut  int
	lie  bool
	code int
}

func newBundleServer(t testing.TB) (*bundleServer, *httptest.Server) {
	bs := &bundleServer{routes: map[string]route{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bs.mu.Lock()
		rt, ok := bs.routes[r.URL.Path]
		bs.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if rt.code != 0 {
			w.WriteHeader(rt.code)
			return
		}
		body := rt.body
		if rt.cut > 0 {
			if rt.lie {
				w.Header().Set("Content-Length", strconvItoa(len(body)))
			}
			body = body[:rt.cut]
		}
		w.Header().Set("Content-Type", "application/gzip")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return bs, srv
}

func (bs *bundleServer) set(path string, rt route) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.routes[path] = rt
}

func strconvItoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
