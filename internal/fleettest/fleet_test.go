package fleettest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// binaries are built once per test binary.
var (
	buildOnce          sync.Once
	buildErr           error
	macrokitBin, natsd string
	buildDir           string
)

func build(t *testing.T) {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "fleettest-bin")
		if buildErr != nil {
			return
		}
		macrokitBin = filepath.Join(buildDir, "macrokit")
		if out, err := exec.Command("go", "build", "-o", macrokitBin, "github.com/macrokit/macrokit-go/cmd/macrokit").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build macrokit: %v\n%s", err, out)
			return
		}
		natsd = os.Getenv("MACROKIT_NATS_SERVER")
		if natsd == "" {
			natsd = filepath.Join(buildDir, "nats-server")
			if out, err := exec.Command("go", "build", "-o", natsd, "github.com/nats-io/nats-server/v2").CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build nats-server: %v\n%s", err, out)
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// postCounter counts the demo site's POST /api/customers by email.
type postCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (p *postCounter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/customers" {
			raw, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(raw))
			var in struct {
				Email string `json:"email"`
			}
			_ = json.Unmarshal(raw, &in)
			p.mu.Lock()
			p.n[strings.ToLower(in.Email)]++
			p.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (p *postCounter) of(email string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n[strings.ToLower(email)]
}

// proc is a child process and what it printed on stderr.
type proc struct {
	name string
	cmd  *exec.Cmd
	mu   sync.Mutex
	errb strings.Builder
	done chan struct{}
}

func (p *proc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.errb.String()
}

// exited says whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// fleet is one test's deployment: the site, the NATS server, the workers.
type fleet struct {
	t        *testing.T
	cpu      *cpuGroup // nil: the processes are not put in a cgroup
	tmp      string    // the children's TMPDIR (their browser profiles)
	work     string    // the project directory (macrokit.yaml, state)
	env      []string
	site     *demosite.Site
	posts    *postCounter
	url      string // the site's
	natsPort int
	natsDir  string
	nats     *proc
	workers  []*proc
}

func newFleet(t *testing.T, opts demosite.Options) *fleet {
	t.Helper()
	if _, err := engine.FindBrowser(); err != nil {
		t.Skip(err)
	}
	build(t)
	tmp, err := os.MkdirTemp("/tmp", "fleettest")
	if err != nil {
		t.Fatal(err)
	}
	f := &fleet{t: t, tmp: tmp, work: t.TempDir(), natsDir: t.TempDir(), posts: &postCounter{n: map[string]int{}}}
	t.Cleanup(func() {
		for _, w := range f.workers {
			f.kill(w)
		}
		if keep := os.Getenv("MACROKIT_FLEET_KEEP"); keep != "" && t.Failed() {
			// The workers' session logs and the batches, for a post-mortem.
			_ = os.CopyFS(filepath.Join(keep, t.Name()), os.DirFS(f.work))
		}
		if f.nats != nil {
			f.kill(f.nats)
		}
		killUnder(tmp)
		_ = os.RemoveAll(tmp)
	})
	f.site = demosite.New(opts)
	srv := httptest.NewServer(f.posts.wrap(f.site.Handler()))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	conf := filepath.Join(f.work, "macrokit.yaml")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.env = append(os.Environ(), "TMPDIR="+tmp, "MACROKIT_CONFIG="+conf, "DEMO_URL="+srv.URL,
		"DEMO_USER="+demosite.DefaultUsername, "DEMO_PASSWORD="+demosite.DefaultPassword)
	f.natsPort = freePort(t)
	f.startNATS()
	return f
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (f *fleet) natsURL() string { return fmt.Sprintf("nats://127.0.0.1:%d", f.natsPort) }

// start runs bin with args in the project directory.
func (f *fleet) start(name, bin string, args ...string) *proc {
	f.t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env, p.cmd.Dir = f.env, f.work
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		f.t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	f.cpu.add(p.cmd.Process.Pid)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.errb.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
		_ = p.cmd.Wait()
		close(p.done)
	}()
	return p
}

// waitFor polls cond until it holds, failing the test after within.
func (f *fleet) waitFor(within time.Duration, what string, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (f *fleet) startNATS() {
	f.t.Helper()
	f.nats = f.start("nats-server", natsd, "-js", "-sd", f.natsDir, "-a", "127.0.0.1", "-p", fmt.Sprint(f.natsPort))
	f.waitFor(20*time.Second, "nats-server to listen", func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", f.natsPort))
		if err == nil {
			c.Close()
		}
		return err == nil || f.nats.exited()
	})
	if f.nats.exited() {
		f.t.Fatalf("nats-server exited:\n%s", f.nats.stderr())
	}
}

// restartNATS stops the server (SIGTERM: a clean shutdown that keeps the
// file store) and starts it again on the same port and store.
func (f *fleet) restartNATS() {
	f.t.Helper()
	_ = f.nats.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-f.nats.done:
	case <-time.After(20 * time.Second):
		f.t.Fatal("nats-server did not stop on SIGTERM")
	}
	f.startNATS()
}

var metricsRE = regexp.MustCompile(`metrics at http://(\S+)/metrics`)

// startWorker starts worker i and waits until it takes jobs.
func (f *fleet) startWorker(extra ...string) *proc {
	f.t.Helper()
	i := len(f.workers)
	args := append([]string{"worker", "--nats", f.natsURL(), "--listen", "127.0.0.1:0",
		"--session-dir", filepath.Join("sessions", fmt.Sprintf("w%d", i))}, extra...)
	w := f.start(fmt.Sprintf("worker %d", i), macrokitBin, args...)
	f.workers = append(f.workers, w)
	f.waitFor(30*time.Second, w.name+" to take jobs", func() bool { return metricsRE.MatchString(w.stderr()) || w.exited() })
	if w.exited() {
		f.t.Fatalf("%s exited:\n%s", w.name, w.stderr())
	}
	return w
}

// metrics reads one worker's /metrics.
func (f *fleet) metrics(w *proc) string {
	m := metricsRE.FindStringSubmatch(w.stderr())
	if m == nil {
		return ""
	}
	resp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// kill sends SIGKILL and waits for the process to end.
func (f *fleet) kill(p *proc) {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// rows writes n add_customer rows; the last `slow` of them are at
// @slow.example.
func (f *fleet) rows(name, prefix string, n, slow int) (string, []string) {
	f.t.Helper()
	var b strings.Builder
	b.WriteString("name,email,tier\n")
	var emails []string
	for i := 1; i <= n; i++ {
		domain := "fleet.example"
		if i > n-slow {
			domain = "slow.example"
		}
		e := fmt.Sprintf("%s%d@%s", prefix, i, domain)
		emails = append(emails, e)
		fmt.Fprintf(&b, "Fleet Person %s%d,%s,pro\n", prefix, i, e)
	}
	p := filepath.Join(f.work, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return name, emails
}

// reportRow is what the test reads of a batch report line.
type reportRow struct {
	Key    string `json:"key"`
	Status string `json:"status"`
	CallID string `json:"call_id"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

var batchIDRE = regexp.MustCompile(`batch (b-\S+):`)

// batchID waits for a batch process to print its id.
func (f *fleet) batchID(p *proc) string {
	f.t.Helper()
	var id string
	f.waitFor(60*time.Second, "the batch id", func() bool {
		if m := batchIDRE.FindStringSubmatch(p.stderr()); m != nil {
			id = m[1]
			return true
		}
		return p.exited()
	})
	if id == "" {
		f.t.Fatalf("batch printed no id:\n%s", p.stderr())
	}
	return id
}

// report reads a finished batch's report.jsonl.
func (f *fleet) report(id string) []reportRow {
	f.t.Helper()
	raw, err := os.ReadFile(filepath.Join(f.work, ".macrokit", "batches", id, "report.jsonl"))
	if err != nil {
		f.t.Fatal(err)
	}
	var rows []reportRow
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r reportRow
		if err := json.Unmarshal(l, &r); err != nil {
			f.t.Fatalf("report line %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// checkExactlyOnce: the report has each email once, ok, and the site holds
// each customer once from one POST.
func (f *fleet) checkExactlyOnce(id string, emails []string) {
	f.t.Helper()
	rows := f.report(id)
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.Key]++
		if r.Status != "ok" {
			f.t.Errorf("row %s: %s %+v", r.Key, r.Status, r.Error)
		}
	}
	if len(rows) != len(emails) {
		f.t.Errorf("report has %d rows, want %d", len(rows), len(emails))
	}
	for _, e := range emails {
		if seen[e] != 1 {
			f.t.Errorf("%s is in the report %d times, want once", e, seen[e])
		}
		if n := f.site.CustomerCount(e); n != 1 {
			f.t.Errorf("%s stored %d times on the site, want once", e, n)
		}
		if n := f.posts.of(e); n != 1 {
			f.t.Errorf("%s POSTed %d times, want once", e, n)
		}
	}
}

// waitBatch waits for a batch process to exit and returns its code.
func (f *fleet) waitBatch(p *proc, within time.Duration) int {
	f.t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		f.kill(p)
		f.t.Fatalf("batch did not finish in %v:\n%s", within, p.stderr())
	}
	return p.cmd.ProcessState.ExitCode()
}

// stored counts the customers of emails on the site.
func (f *fleet) stored(emails []string) int {
	n := 0
	for _, e := range emails {
		n += f.site.CustomerCount(e)
	}
	return n
}

// TestFleet: three worker processes behind one nats-server process run a
// 30-row add_customer batch (behind the demo login) enqueued by
// `batch --nats`. One worker is killed with SIGKILL mid-batch: its jobs
// come back after the ack wait and are decided by add_customer's done
// check, so every row is in the report once and every customer is on the
// site once, from one POST. The slow rows (the site holds their Save for
// longer than the ack wait) are not redelivered while their worker lives.
// Then the NATS server is restarted mid-way through a second batch:
// nothing is lost. The fleet logs in once.
func TestFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries and runs a fleet")
	}
	rules, err := demosite.ParseInjectRules("slow.example=slow")
	if err != nil {
		t.Fatal(err)
	}
	f := newFleet(t, demosite.Options{RequireLogin: true, InjectRules: rules, SlowDelay: 3 * time.Second})
	for range 3 {
		f.startWorker("--concurrency", "1", "--ack-wait", "2s", "--grace", "5s")
	}

	// A worker killed mid-batch.
	input, emails := f.rows("kill.csv", "kill", 30, 2)
	b := f.start("batch 1", macrokitBin, "batch", "add_customer", "--input", input, "--key", "email", "--nats", f.natsURL(), "--session-dir", "sessions")
	id := f.batchID(b)
	f.waitFor(3*time.Minute, "6 customers stored", func() bool { return f.stored(emails) >= 6 || b.exited() })
	f.kill(f.workers[0])
	t.Logf("killed worker 0 with %d of %d customers stored", f.stored(emails), len(emails))
	if code := f.waitBatch(b, 4*time.Minute); code != 0 {
		t.Errorf("batch 1 exited %d:\n%s", code, b.stderr())
	}
	f.checkExactlyOnce(id, emails)
	for _, w := range f.workers[1:] {
		t.Logf("%s: %s", w.name, grepLines(f.metrics(w), "macrokit_worker_redeliveries_total{"))
	}
	// The killed worker held one job (--concurrency 1) and at most one
	// more was on its way to it (a pull it had open when it died): only
	// those may come back. The slow rows heartbeat past the ack wait and
	// are never redelivered.
	var again []string
	for _, r := range f.results(id, len(emails)) {
		if r.Attempt > 1 {
			again = append(again, fmt.Sprintf("%s (attempt %d on %s: %s)", r.Row, r.Attempt, r.Worker, r.Note))
		}
		if strings.Contains(r.Row, "slow.example") && r.Attempt != 1 {
			t.Errorf("slow row %s redelivered while its worker lived: attempt %d", r.Row, r.Attempt)
		}
	}
	t.Logf("redelivered rows: %v", again)
	if len(again) > 2 {
		t.Errorf("%d rows redelivered, want at most the killed worker's: %v", len(again), again)
	}

	// The NATS server restarted mid-batch.
	input, emails = f.rows("restart.csv", "restart", 30, 0)
	b = f.start("batch 2", macrokitBin, "batch", "add_customer", "--input", input, "--key", "email", "--nats", f.natsURL(), "--session-dir", "sessions")
	id = f.batchID(b)
	f.waitFor(3*time.Minute, "8 customers stored", func() bool { return f.stored(emails) >= 8 || b.exited() })
	f.restartNATS()
	t.Logf("restarted nats-server with %d of %d customers stored", f.stored(emails), len(emails))
	if code := f.waitBatch(b, 4*time.Minute); code != 0 {
		t.Errorf("batch 2 exited %d:\n%s", code, b.stderr())
	}
	f.checkExactlyOnce(id, emails)
	for _, w := range f.workers[1:] {
		if w.exited() {
			t.Errorf("%s died across the restart:\n%s", w.name, w.stderr())
		}
	}
	if n := f.site.Logins(); n != 1 {
		t.Errorf("the fleet logged in %d times, want once", n)
	}

	// SIGTERM drains: the workers exit 0 saying so.
	for _, w := range f.workers[1:] {
		_ = w.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-w.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not stop on SIGTERM", w.name)
		}
		if code := w.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(w.stderr(), "drained") {
			t.Errorf("%s after SIGTERM: exit %d\n%s", w.name, code, w.stderr())
		}
	}
}

// results reads a batch's n results from the queue's results bucket.
func (f *fleet) results(batch string, n int) []queue.Result {
	f.t.Helper()
	nc, err := nats.Connect(f.natsURL())
	if err != nil {
		f.t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := queue.Open(ctx, js, queue.Config{Worker: "fleettest"})
	if err != nil {
		f.t.Fatal(err)
	}
	ch, err := q.Watch(ctx, batch)
	if err != nil {
		f.t.Fatal(err)
	}
	seen := map[string]queue.Result{}
	for r := range ch {
		seen[r.JobID] = r
		if len(seen) == n {
			break
		}
	}
	if len(seen) != n {
		f.t.Fatalf("%d results of batch %s in the bucket, want %d", len(seen), batch, n)
	}
	out := make([]queue.Result, 0, n)
	for _, r := range seen {
		out = append(out, r)
	}
	return out
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "; ")
}

// killUnder SIGKILLs every process whose command line names dir (the
// browsers of a killed worker).
func killUnder(dir string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(dir)) {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(filepath.Base(filepath.Dir(p)), &pid); err == nil {
			if pr, err := os.FindProcess(pid); err == nil {
				_ = pr.Kill()
			}
		}
	}
}

// TestFleetThroughputFigure measures rows per minute of a 40-row
// add_customer batch (behind the demo login) with 1, 2 and 3 worker
// processes of --concurrency 1, against a local `batch` of the same rows
// with --concurrency 1 measured in the same run (the ratio is the
// figure; docs/scale.md). Not in CI:
//
//	MACROKIT_FLEET_FIGURE=1 go test ./internal/fleettest -run ThroughputFigure -v -timeout 30m
func TestFleetThroughputFigure(t *testing.T) {
	if os.Getenv("MACROKIT_FLEET_FIGURE") == "" {
		t.Skip("a measurement, not a test: set MACROKIT_FLEET_FIGURE=1")
	}
	const n = 40
	f := newFleet(t, demosite.Options{RequireLogin: true})
	f.cpu = newCPUGroup()
	t.Cleanup(f.cpu.remove)
	f.cpu.add(f.nats.cmd.Process.Pid)
	if f.cpu == nil {
		t.Log("no writable cgroup: CPU is the machine's, not the fleet's own")
	}
	timed := func(name string, args ...string) time.Duration {
		pids := []int{f.nats.cmd.Process.Pid}
		for _, w := range f.workers {
			pids = append(pids, w.cmd.Process.Pid)
		}
		u := startUsage(f.cpu, f.tmp, pids...)
		begin := time.Now()
		p := f.start(name, macrokitBin, args...)
		if code := f.waitBatch(p, 15*time.Minute); code != 0 {
			t.Fatalf("%s exited %d:\n%s", name, code, p.stderr())
		}
		took := time.Since(begin)
		cpu, share, mb, procs := u.end()
		t.Logf("%s: %d rows in %v: %.1f rows/min; the fleet's CPU %.1f core-s (%.2f core-s/row, %.2f cores busy on average); the machine's cores %.0f%% busy; the fleet's peak memory %.0f MB (PSS, %d browser processes)",
			name, n, took.Round(time.Millisecond), n/took.Minutes(), cpu, cpu/n, cpu/took.Seconds(), 100*share, mb, procs)
		return took
	}
	input, _ := f.rows("local.csv", "local", n, 0)
	local := timed("local batch --concurrency 1", "batch", "add_customer", "--input", input, "--key", "email", "--session-dir", "")
	for workers := 1; workers <= 3; workers++ {
		f.startWorker("--concurrency", "1", "--session-dir", "")
		input, _ := f.rows(fmt.Sprintf("w%d.csv", workers), fmt.Sprintf("w%d-", workers), n, 0)
		took := timed(fmt.Sprintf("batch --nats on %d worker(s)", workers), "batch", "add_customer", "--input", input, "--key", "email", "--nats", f.natsURL(), "--session-dir", "")
		t.Logf("%d worker(s): %.2fx the local batch's rows/min", workers, local.Seconds()/took.Seconds())
	}
}
