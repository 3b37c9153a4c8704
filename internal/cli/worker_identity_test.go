package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/queue"
)

// TestWorkersShareOneLogin: two workers (separate processes as far as
// their identities go) on a site that asks for a login run eight jobs of
// the default identity with one login between them — the fleet's KV store
// carries the session — and each customer is stored once.
func TestWorkersShareOneLogin(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	t.Parallel()
	site := demosite.New(demosite.Options{RequireLogin: true})
	hs := httptest.NewServer(site.Handler())
	defer hs.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvConfig: conf, "DEMO_URL": hs.URL, "DEMO_USER": demosite.DefaultUsername, "DEMO_PASSWORD": demosite.DefaultPassword}
	n := startNATS(t)
	startWorker(t, env, n.URL, "--concurrency", "2", "--name", "w1")
	startWorker(t, env, n.URL, "--concurrency", "2", "--name", "w2")
	q := testQueue(t, n.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const jobs = 8
	for i := range jobs {
		args := fmt.Sprintf(`{"name":"Shared %d","email":"s%d@shared.example"}`, i, i)
		if _, err := q.Enqueue(ctx, queue.Job{ID: fmt.Sprintf("sh.%d", i), Macro: "add_customer", Args: json.RawMessage(args)}); err != nil {
			t.Fatal(err)
		}
	}
	workers := map[string]int{}
	for i := range jobs {
		r, err := q.Wait(ctx, fmt.Sprintf("sh.%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != queue.StatusOK {
			t.Errorf("job %d: %s %+v", i, r.Status, r.Error)
		}
		workers[r.Worker]++
		if c := site.CustomerCount(fmt.Sprintf("s%d@shared.example", i)); c != 1 {
			t.Errorf("customer %d stored %d times, want 1", i, c)
		}
	}
	if got := site.Logins(); got != 1 {
		t.Errorf("%d logins for %d jobs on two workers (%v), want 1", got, jobs, workers)
	}
	t.Logf("jobs by worker: %v", workers)
}
