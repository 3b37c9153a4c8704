package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/batch"
)

// postCounter counts the demo site's POST /api/customers by the email
// submitted, whatever the answer.
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

// journalEnds counts the end entries in a batch journal (a torn last line
// is not one).
func journalEnds(path string) int {
	raw, _ := os.ReadFile(path)
	return bytes.Count(raw, []byte(`"type":"end"`))
}

// TestBatchKill9Resume: `batch add_customer` over 50 rows, as the built
// binary, behind the demo site's login, is killed with SIGKILL once about
// half the rows have ended. One `--resume` runs the rows never started and
// decides the uncertain ones (started, no outcome) by add_customer's done
// check: present on the site means ok without sending it again, absent
// means it runs. In the end every row is ok and every customer is stored
// exactly once, from exactly one POST.
func TestBatchKill9Resume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs 50 rows in Chromium")
	}
	t.Parallel()
	if _, err := engine.FindBrowser(); err != nil {
		t.Skip(err)
	}
	bin := filepath.Join(t.TempDir(), "macrokit")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/macrokit/macrokit-go/cmd/macrokit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The children's TMPDIR: their browser profiles land there, so any
	// Chromium the kill left behind is found by its command line.
	tmp, err := os.MkdirTemp("/tmp", "mkkill9")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		killUnder(tmp)
		_ = os.RemoveAll(tmp)
	})

	site := demosite.New(demosite.Options{RequireLogin: true})
	posts := &postCounter{n: map[string]int{}}
	srv := httptest.NewServer(posts.wrap(site.Handler()))
	defer srv.Close()

	work := t.TempDir()
	conf := filepath.Join(work, "macrokit.yaml")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 50
	var csv strings.Builder
	csv.WriteString("name,email,tier\n")
	emails := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		e := fmt.Sprintf("kill%d@resume.example", i)
		emails = append(emails, e)
		fmt.Fprintf(&csv, "Resume Person %d,%s,free\n", i, e)
	}
	if err := os.WriteFile(filepath.Join(work, "50rows.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp, EnvConfig+"="+conf, "DEMO_URL="+srv.URL,
		"DEMO_USER="+demosite.DefaultUsername, "DEMO_PASSWORD="+demosite.DefaultPassword)
	args := []string{"batch", "add_customer", "--input", "50rows.csv", "--concurrency", "2", "--key", "email", "--session-dir", "sessions"}
	batchCmd := func(extra ...string) (int, string) {
		c := exec.Command(bin, append(append([]string(nil), args...), extra...)...)
		c.Env, c.Dir = env, work
		var errb bytes.Buffer
		c.Stderr = &errb
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, errb.String()
	}

	// The first run, killed halfway.
	first := exec.Command(bin, args...)
	first.Env, first.Dir = env, work
	stderr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	idc := make(chan string, 1)
	var firstErr strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			firstErr.WriteString(sc.Text() + "\n")
			if m := regexp.MustCompile(`^batch (b-\S+):`).FindStringSubmatch(sc.Text()); m != nil && !sent {
				idc <- m[1]
				sent = true
			}
		}
		if !sent {
			close(idc)
		}
	}()
	var id string
	select {
	case id = <-idc:
	case <-time.After(2 * time.Minute):
	}
	if id == "" {
		_ = first.Process.Kill()
		_ = first.Wait()
		t.Fatalf("no batch id on stderr:\n%s", firstErr.String())
	}
	journal := filepath.Join(work, ".macrokit", "batches", id, "journal.jsonl")
	deadline := time.Now().Add(5 * time.Minute)
	for journalEnds(journal) < n/2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := first.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = first.Wait()
	ended := journalEnds(journal)
	if ended < n/2 || ended >= n {
		t.Fatalf("killed after %d ended rows, want about half of %d:\n%s", ended, n, firstErr.String())
	}
	state, err := batch.ReadJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	var uncertain []string
	for key, e := range state {
		switch e.Status {
		case batch.StatusUncertain:
			uncertain = append(uncertain, key)
		case batch.StatusOK:
		default:
			t.Errorf("row %s ended %s before the kill: %+v", key, e.Status, e.Error)
		}
	}
	t.Logf("killed batch %s with %d rows ended, %d uncertain, %d never started", id, ended, len(uncertain), n-len(state))

	// One resume decides everything: the rows never started run, and
	// add_customer's done check (find_customer by email) decides each
	// uncertain row on a fresh page — present: ok, not sent again; absent:
	// it runs. No --rerun-uncertain, no operator.
	before := map[string]int{}
	present := 0
	for _, e := range uncertain {
		before[e] = posts.of(e)
		present += site.CustomerCount(e)
	}
	t.Logf("uncertain rows: %d present on the site, %d absent", present, len(uncertain)-present)
	code, errs := batchCmd("--resume", id)
	want := fmt.Sprintf("%d row(s): %d ok, 0 failed, 0 unverified, %d skipped (ok before), 0 uncertain, 0 not run", n, n-ended, ended)
	if code != 0 || !strings.Contains(errs, want) {
		t.Fatalf("resume: exit %d, want 0 and %q:\n%s", code, want, errs)
	}
	for _, e := range uncertain {
		if before[e] == 1 && site.CustomerCount(e) == 1 && posts.of(e) != 1 {
			t.Errorf("uncertain row %s was on the site and was sent again (%d POSTs)", e, posts.of(e))
		}
	}

	for _, e := range emails {
		if got, p := site.CustomerCount(e), posts.of(e); got != 1 || p != 1 {
			t.Errorf("%s: stored %d times from %d POSTs, want exactly once from one", e, got, p)
		}
	}
	if st := site.Stats(); st.CustomersCreated != n || st.CustomerConflicts != 0 {
		t.Errorf("site counted %+v, want %d created and no conflict", st, n)
	}
}
