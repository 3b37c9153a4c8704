package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/queue"
)

// TestWorkerFarmEndpointDies: a worker on a farm of two remote Chromium
// processes (--cdp twice, one page each) runs two slow add_customer jobs,
// one per browser; one browser is SIGKILLed while both saves are in
// flight. The lost job goes back to the queue (not lost, not failed), its
// redelivery's done check finds no customer and runs it on the browser
// that is left, and each customer is stored exactly once.
func TestWorkerFarmEndpointDies(t *testing.T) {
	t.Parallel()
	a, b := browsertest.StartRemote(t), browsertest.StartRemote(t)
	rules, err := demosite.ParseInjectRules("slow.example=slow")
	if err != nil {
		t.Fatal(err)
	}
	site := demosite.New(demosite.Options{InjectRules: rules, SlowDelay: 3 * time.Second})
	saves := make(chan struct{}, 16)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/customers" {
			saves <- struct{}{}
		}
		site.Handler().ServeHTTP(w, r)
	}))
	defer hs.Close()
	conf := filepath.Join(t.TempDir(), "macrokit.yaml")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvConfig: conf, "DEMO_URL": hs.URL}
	n := startNATS(t)
	addr, _ := startWorker(t, env, n.URL, "--concurrency", "2", "--cdp", a.WS, "--cdp", b.HTTPURL(t), "--per-browser", "1")
	q := testQueue(t, n.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	emails := []string{"one@slow.example", "two@slow.example"}
	for i, e := range emails {
		args, _ := json.Marshal(map[string]string{"name": "Farm " + e, "email": e})
		if _, err := q.Enqueue(ctx, queue.Job{ID: "farm." + string(rune('a'+i)), Macro: "add_customer", Args: args}); err != nil {
			t.Fatal(err)
		}
	}
	for range emails {
		select {
		case <-saves:
		case <-ctx.Done():
			t.Fatal("the two saves never reached the site")
		}
	}
	a.Kill() // mid-save: the site is holding both requests for 3s
	for i, e := range emails {
		r, err := q.Wait(ctx, "farm."+string(rune('a'+i)))
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != queue.StatusOK {
			t.Errorf("%s: %s %+v", e, r.Status, r.Error)
		}
		if c := site.CustomerCount(e); c != 1 {
			t.Errorf("%s stored %d times, want 1", e, c)
		}
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	_, metrics := get("/metrics")
	for _, want := range []string{
		`macrokit_worker_redeliveries_total{macro="add_customer",may_have_run="true"} 1`,
		`macrokit_worker_jobs_total{macro="add_customer",outcome="ok"} 2`,
		`macrokit_worker_browser_slots 2`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %s:\n%s", want, grepLines(metrics, "macrokit_"))
		}
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"browsers":"ok"`) {
		t.Errorf("/healthz with one browser left: %d %s", code, body)
	}
	b.Kill()
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := get("/healthz")
		if code == http.StatusServiceUnavailable && strings.Contains(body, "every browser endpoint is down") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz with every browser dead: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestWorkerUsage: bad worker flags are usage errors (exit 2) naming the
// flag, before any connection is made.
func TestWorkerUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no nats", []string{"worker"}, "--nats needs a NATS server URL"},
		{"concurrency", []string{"worker", "--nats", "nats://127.0.0.1:1", "--concurrency", "0"}, "--concurrency must be at least 1"},
		{"approval", []string{"worker", "--nats", "nats://127.0.0.1:1", "--approval", "maybe"}, "want job, yes or deny"},
		{"identity store", []string{"worker", "--nats", "nats://127.0.0.1:1", "--identity-store", "disk"}, "want nats or local"},
		{"argument", []string{"worker", "extra"}, "worker takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLIIn(t, map[string]string{}, "", tc.args...)
			if code != ExitUsage || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, ExitUsage, tc.want, errs)
			}
		})
	}
}

// TestWorkerFarmSlots: a farm smaller than --concurrency is refused (the
// worker would hold jobs it has no browser for); the default per-browser
// limit spreads the concurrency over the endpoints.
func TestWorkerFarmSlots(t *testing.T) {
	for _, tc := range []struct {
		cdp       []string
		conc, per int
		slots     int
		wantErr   string
	}{
		{[]string{"ws://a:1/devtools/browser/x", "http://b:2"}, 3, 0, 4, ""},
		{[]string{"http://b:2"}, 2, 0, 2, ""},
		{[]string{"ws://a:1/devtools/browser/x", "http://b:2"}, 5, 2, 0, "more than the farm's 4 browser slots"},
		{[]string{"ftp://a:1"}, 1, 0, 0, "--cdp: "},
	} {
		br, err := newWorkerBrowsers(WorkerOptions{Concurrency: tc.conc, CDP: tc.cdp, PerBrowser: tc.per})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err %v, want %q", tc.cdp, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.cdp, err)
			continue
		}
		if got := br.slots(); got != tc.slots {
			t.Errorf("%v --concurrency %d: %d slots, want %d", tc.cdp, tc.conc, got, tc.slots)
		}
		br.close()
	}
}
