package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/queue"
)

// syncBuffer is a bytes.Buffer a running command and a test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWorker runs `worker --nats url` in-process until the test ends or
// stop is called (which waits for the drain and returns its exit code
// and stderr); addr is its /metrics address.
func startWorker(t *testing.T, env map[string]string, url string, extra ...string) (addr string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errb := &syncBuffer{}
	done := make(chan int, 1)
	args := append([]string{"macrokit", "worker", "--nats", url, "--listen", "127.0.0.1:0", "--session-dir", "", "--grace", "5s"}, extra...)
	go func() {
		done <- run(ctx, args, strings.NewReader(""), io.Discard, errb, func(k string) string { return env[k] })
	}()
	re := regexp.MustCompile(`metrics at http://(\S+)/metrics`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := re.FindStringSubmatch(errb.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("worker exited %d before taking jobs:\n%s", code, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker did not start:\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var once sync.Once
	code := 0
	stop = func() (int, string) {
		once.Do(func() { cancel(); code = <-done })
		return code, errb.String()
	}
	t.Cleanup(func() { stop() })
	return addr, stop
}

// testQueue opens the default queue on url for the test.
func testQueue(t *testing.T, url string) *natsQueue {
	t.Helper()
	q, err := openQueue(context.Background(), NATSOptions{URL: url, Worker: "test"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q
}

// TestWorkerRunsJobs: jobs published on the queue run on the demo site
// through an in-process worker: each customer stored once with a passed
// verdict, an invalid job failed without running, /healthz and /metrics
// answer, and the worker drains and exits 0 when cancelled.
func TestWorkerRunsJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	site, _, env := batchSetup(t)
	n := startNATS(t)
	addr, stop := startWorker(t, env, n.URL, "--concurrency", "2")
	q := testQueue(t, n.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	jobs := []struct {
		job    queue.Job
		status queue.Status
		code   string
	}{
		{queue.Job{ID: "w.1", Macro: "add_customer", Args: json.RawMessage(`{"name":"Worker One","email":"one@worker.example"}`)}, queue.StatusOK, ""},
		{queue.Job{ID: "w.2", Macro: "add_customer", Args: json.RawMessage(`{"name":"Worker Two","email":"two@worker.example"}`)}, queue.StatusOK, ""},
		{queue.Job{ID: "w.3", Macro: "add_customer", Args: json.RawMessage(`{"name":"No Email"}`)}, queue.StatusFailed, string(runtime.CodeInvalidArguments)},
		{queue.Job{ID: "w.4", Macro: "no_such_macro"}, queue.StatusFailed, string(runtime.CodeMacroNotFound)},
	}
	for _, j := range jobs {
		if _, err := q.Enqueue(ctx, j.job); err != nil {
			t.Fatal(err)
		}
	}
	for _, j := range jobs {
		r, err := q.Wait(ctx, j.job.ID)
		if err != nil {
			t.Fatalf("%s: %v", j.job.ID, err)
		}
		code := ""
		if r.Error != nil {
			code = r.Error.Code
		}
		if r.Status != j.status || code != j.code {
			t.Errorf("%s: %s %q %+v, want %s %q", j.job.ID, r.Status, code, r.Error, j.status, j.code)
		}
		if r.Status == queue.StatusOK && r.Verdict != "passed" {
			t.Errorf("%s: ok with verdict %q", j.job.ID, r.Verdict)
		}
	}
	for _, email := range []string{"one@worker.example", "two@worker.example"} {
		if c := customersLike(t, site.URL, email); c != 1 {
			t.Errorf("%s stored %d times, want 1", email, c)
		}
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"nats":"ok"`) {
		t.Errorf("/healthz: %d %s", code, body)
	}
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, `macrokit_worker_jobs_total{macro="add_customer",outcome="ok"} 2`) {
		t.Errorf("/metrics: %d, no count of the two ok jobs:\n%s", code, grepLines(body, "macrokit_"))
	}
	if code, errs := stop(); code != 0 || !strings.Contains(errs, "drained") {
		t.Errorf("worker after cancel: exit %d\n%s", code, errs)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestWorkerApprovalPolicy: a dangerous job runs under --approval job only
// with its enqueuer's approval, always under yes, never under deny.
func TestWorkerApprovalPolicy(t *testing.T) {
	idents := &workerIdentities{cfg: &Config{Getenv: func(string) string { return "" }}, byName: map[string]*runtime.Identity{}}
	approved := &queue.Approval{Channel: "terminal", Who: "ada", At: time.Now()}
	for _, tc := range []struct {
		policy   string
		approval *queue.Approval
		runs     bool
	}{
		{WorkerApproveJob, approved, true},
		{WorkerApproveJob, nil, false},
		{WorkerApproveYes, nil, true},
		{WorkerApproveDeny, approved, false},
	} {
		t.Run(fmt.Sprintf("%s/%v", tc.policy, tc.approval != nil), func(t *testing.T) {
			d, err := workerDispatcher(runtime.Dispatcher{}, idents, tc.policy, queue.Job{ID: "x", Macro: "m", Approval: tc.approval})
			if err != nil {
				t.Fatal(err)
			}
			runs := false
			if d.Approver != nil {
				ok, err := d.Approver(context.Background(), runtime.ApprovalRequest{Macro: "m"})
				runs = ok && err == nil
			}
			if runs != tc.runs {
				t.Errorf("approved = %v, want %v", runs, tc.runs)
			}
		})
	}
}

// TestWorkerAckWait: the ack wait is the shared consumer's. A worker
// given another one than the consumer's refuses to start (exit 2, naming
// both and how to change it); one given none says it takes the
// consumer's. No job runs, so no browser starts.
func TestWorkerAckWait(t *testing.T) {
	n := startNATS(t)
	env := map[string]string{}
	_, stop := startWorker(t, env, n.URL, "--ack-wait", "3s")
	defer stop()
	code, _, errs := runCLIIn(t, env, "", "worker", "--nats", n.URL, "--listen", "off", "--session-dir", "", "--ack-wait", "1s")
	if code != ExitUsage || !strings.Contains(errs, "--ack-wait 1s") || !strings.Contains(errs, "has ack wait 3s") || !strings.Contains(errs, "nats consumer rm MACROKIT_JOBS macrokit-workers") {
		t.Errorf("a worker with another ack wait: exit %d, want %d naming both:\n%s", code, ExitUsage, errs)
	}
	_, stop2 := startWorker(t, env, n.URL)
	if _, errs := stop2(); !strings.Contains(errs, "ack wait 3s") {
		t.Errorf("a worker with no --ack-wait does not say it takes the consumer's 3s:\n%s", errs)
	}
}
