package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
)

// pageMacros are the reference macros whose tests drive pages only.
var pageMacros = []string{"add_customer", "find_customer", "list_orders", "login", "update_settings"}

// countingListener is a loopback address that counts the connections on
// which anything arrives (and answers none): the requests that reach "the
// site". Chromium may open an idle connection to a navigation's origin
// ahead of its request (a speculative preconnect): it carries no byte of
// any request, so it is not counted. It listens on a loopback address of
// its own (127.x.y.z, not 127.0.0.1): the package's other tests start and
// close servers on 127.0.0.1 all the time, and a browser of theirs still
// loading a page of a closed server would otherwise reach this one on a
// reused port and be counted as this test's leak.
func countingListener(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var ln net.Listener
	var err error
	for range 5 {
		addr := fmt.Sprintf("127.%d.%d.%d:0", 1+rand.IntN(254), rand.IntN(256), 1+rand.IntN(254))
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(time.Minute))
				buf := make([]byte, 512)
				if k, _ := c.Read(buf); k > 0 {
					n.Add(1)
					line, _, _ := bytes.Cut(buf[:k], []byte("\r\n"))
					t.Logf("the site got: %q", line)
				}
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return "http://" + ln.Addr().String(), &n
}

// TestPageFixturesOffline: the reference page macros' tests pass from the
// committed fixtures (fixtures/) with DEMO_URL pointing at an address that
// only counts connections: every request of their pages is answered from
// the page fixture, none reaches it. A request the fixture lacks fails the
// test, naming it, and still goes nowhere.
func TestPageFixturesOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	site, conns := countingListener(t)
	env := map[string]string{"DEMO_URL": site}
	code, stdout, stderr := runCLI(t, env, append([]string{"test", "--fixtures", "../../fixtures", "--format", "json"}, pageMacros...)...)
	rep := decodeReport(t, stdout)
	if code != 0 || rep.Passed != len(pageMacros) {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var pageRep struct {
		Tests []struct {
			Test          string
			PageFixture   string `json:"page_fixture"`
			PageExchanges int    `json:"page_exchanges"`
		}
	}
	if err := decodeJSON(stdout, &pageRep); err != nil {
		t.Fatal(err)
	}
	for i, tc := range rep.Tests {
		pt := pageRep.Tests[i]
		if tc.Mode != "replay" || tc.InProcess || !strings.HasSuffix(pt.PageFixture, ".page.jsonl") || pt.PageExchanges < 5 {
			t.Errorf("%s: mode %s in-process %v page fixture %q served %d", tc.Test, tc.Mode, tc.InProcess, pt.PageFixture, pt.PageExchanges)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the replay sent %d request(s) to DEMO_URL", n)
	}

	// A fixture without the login POST: the test fails naming it.
	dir := t.TempDir()
	src := "../../fixtures/login/signs-in-with-the-demo-account.page.jsonl"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"method":"POST","url":"{{env.DEMO_URL}}/api/login"`)) {
			kept = append(kept, line)
		}
	}
	if len(kept) == len(bytes.Split(data, []byte("\n"))) {
		t.Fatalf("no login POST in %s", src)
	}
	dst := filepath.Join(dir, "login", "signs-in-with-the-demo-account.page.jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, bytes.Join(kept, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runCLI(t, env, "test", "login", "--fixtures", dir)
	if code != 1 || !strings.Contains(stdout, "FAIL  login / signs in with the demo account  (replay "+dst) ||
		!strings.Contains(stdout, "page fixture "+dst+" has no recorded response for POST {{env.DEMO_URL}}/api/login (record it again: test --update)") {
		t.Errorf("miss: exit %d\n%s", code, stdout)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the replay with a miss sent %d request(s)", n)
	}
	// The counter counts: with no fixture the page goes to DEMO_URL.
	if code, stdout, _ = runCLI(t, env, "test", "find_customer", "--fixtures", t.TempDir(), "--timeout", "20s"); code != 1 || conns.Load() == 0 {
		t.Errorf("live without a fixture: exit %d, %d request(s) counted\n%s", code, conns.Load(), stdout)
	}
}

// TestPageFixtureDrift records list_orders against a demo site, replays
// it, then runs --live against a site whose data differs (another Seed):
// the changed API response is reported as page drift, apart from
// pass/fail; --update with nothing changed leaves the file alone.
func TestPageFixtureDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	day := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return day }
	var hits atomic.Int64
	serve := func(seed int64) string {
		h := demosite.New(demosite.Options{Seed: seed, Clock: clock}).Handler()
		srv := httptest.NewServer(countRequests(h, &hits))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	a := serve(1)
	fixtures := t.TempDir()
	code, stdout, _ := runCLI(t, map[string]string{"DEMO_URL": a}, "test", "list_orders", "--update", "--fixtures", fixtures)
	path := filepath.Join(fixtures, "list_orders", "counts-pending-orders.page.jsonl")
	if code != 0 || !strings.Contains(stdout, "page fixture written: "+path) {
		t.Fatalf("--update: exit %d\n%s", code, stdout)
	}
	info, _ := os.Stat(path)
	code, stdout, _ = runCLI(t, map[string]string{"DEMO_URL": a}, "test", "list_orders", "--update", "--fixtures", fixtures)
	if again, _ := os.Stat(path); code != 0 || strings.Contains(stdout, "page fixture written") || !again.ModTime().Equal(info.ModTime()) {
		t.Errorf("an unchanged --update rewrote the page fixture: exit %d\n%s", code, stdout)
	}

	b := serve(2)
	before := hits.Load()
	code, stdout, _ = runCLI(t, map[string]string{"DEMO_URL": b}, "test", "list_orders", "--live", "--fixtures", fixtures, "--format", "json")
	rep := decodeReport(t, stdout)
	if len(rep.Tests) != 1 || rep.Drifted != 1 || rep.Tests[0].Mode != "live" || hits.Load() == before {
		t.Fatalf("--live: exit %d\n%s", code, stdout)
	}
	var found bool
	for _, d := range rep.Tests[0].Drift {
		if d.Kind == "changed" && strings.HasPrefix(d.Request, "GET {{env.DEMO_URL}}/api/orders") && len(d.Changes) > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("no drift of the orders API: %+v", rep.Tests[0].Drift)
	}
	code, stdout, _ = runCLI(t, map[string]string{"DEMO_URL": b}, "test", "list_orders", "--live", "--fail-on-drift", "--fixtures", fixtures)
	if code != 1 || !strings.Contains(stdout, "drift page changed GET {{env.DEMO_URL}}/api/orders") {
		t.Errorf("--fail-on-drift: exit %d\n%s", code, stdout)
	}
}

// countRequests counts the requests h serves.
func countRequests(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	})
}

func decodeJSON(s string, v any) error { return json.Unmarshal([]byte(s), v) }
