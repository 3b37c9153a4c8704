package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
	htmlreport "github.com/macrokit/macrokit-go/internal/report"
	"github.com/macrokit/macrokit-go/runtime/batch"
)

// customersLike counts the demo site's customers whose name or email
// contains q, through its API.
func customersLike(t *testing.T, base, q string) int {
	t.Helper()
	resp, err := http.Get(base + "/api/customers?q=" + q)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return len(body.Items)
}

func writeRows(t *testing.T, dir string, n int, bad map[int]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("name,email,tier\n")
	for i := 1; i <= n; i++ {
		email := fmt.Sprintf("row%d@batch.example", i)
		if v, ok := bad[i]; ok {
			email = v
		}
		fmt.Fprintf(&b, "Batch Person %d,%s,pro\n", i, email)
	}
	p := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// batchSetup serves a fresh demo site and points a project (an empty
// macrokit.yaml in a temporary directory, so the batch's state lands there)
// at it.
func batchSetup(t *testing.T) (*httptest.Server, string, map[string]string) {
	t.Helper()
	site := httptest.NewServer(demosite.New(demosite.Options{}).Handler())
	t.Cleanup(site.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return site, dir, map[string]string{EnvConfig: conf, "DEMO_URL": site.URL}
}

// TestBatchChecksEveryRowFirst: one bad row stops the whole batch before
// anything runs, every problem named at its line; --dry-run checks and
// runs nothing either.
func TestBatchChecksEveryRowFirst(t *testing.T) {
	site, dir, env := batchSetup(t)
	bad := writeRows(t, dir, 4, map[int]string{2: "not-an-email", 4: "also bad"})
	code, out, errs := runCLIIn(t, env, "", "batch", "add_customer", "--input", bad, "--session-dir", "")
	if code != 2 || !strings.Contains(errs, "rows.csv:3: email: ") || !strings.Contains(errs, "rows.csv:5: email: ") || !strings.Contains(errs, "nothing ran") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	good := writeRows(t, dir, 3, nil)
	code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", good, "--dry-run", "--session-dir", "")
	if code != 0 || !strings.Contains(errs, "3 row(s), every one valid for add_customer; nothing ran") {
		t.Fatalf("dry run: exit %d\n%s", code, errs)
	}
	if n := customersLike(t, site.URL, "batch.example"); n != 0 {
		t.Errorf("%d customers were added by a batch that must not run", n)
	}
	if _, err := os.Stat(filepath.Join(dir, ".macrokit", "batches")); err == nil {
		t.Error("a batch that did not run left a journal")
	}
}

// TestBatchDeliveryAndResume runs add_customer over rows on the demo site
// in Chromium: every row ok and applied once, a report in JSONL and CSV;
// then a journal as a crash leaves it (one row ok, one started without an
// outcome) is resumed: the ok row is skipped, the uncertain one is not run
// again until --rerun-uncertain, and no customer is added twice.
func TestBatchDeliveryAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	t.Parallel()
	site, dir, env := batchSetup(t)
	rows := writeRows(t, dir, 4, nil)
	code, _, errs := runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--concurrency", "2", "--key", "email", "--session-dir", filepath.Join(dir, "sessions"))
	if code != 0 || !strings.Contains(errs, "4 row(s): 4 ok, 0 failed") || !strings.Contains(errs, "accuracy 100.0%") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if n := customersLike(t, site.URL, "batch.example"); n != 4 {
		t.Fatalf("site has %d batch customers, want 4", n)
	}
	id := regexp.MustCompile(`batch (b-\S+):`).FindStringSubmatch(errs)
	if id == nil {
		t.Fatalf("no batch id in %s", errs)
	}
	bdir := filepath.Join(dir, ".macrokit", "batches", id[1])
	report, _ := os.ReadFile(filepath.Join(bdir, "report.jsonl"))
	if strings.Count(string(report), `"status":"ok"`) != 4 {
		t.Errorf("report.jsonl:\n%s", report)
	}
	if csvb, _ := os.ReadFile(filepath.Join(bdir, "report.csv")); !strings.HasPrefix(string(csvb), "line,key,status") {
		t.Errorf("report.csv:\n%s", csvb)
	}
	// The batch's report links each row to the steps and checks its real
	// run logged.
	code, out, errs := runCLIIn(t, env, "", "report", id[1], "--format", "json")
	var rep htmlreport.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Batch == nil || rep.Batch.Counts.OK != 4 {
		t.Fatalf("report: exit %d\n%s\n%.500s", code, errs, out)
	}
	calls := map[string]*htmlreport.Call{}
	for _, s := range rep.Sessions {
		for _, it := range s.Items {
			if it.Call != nil {
				calls[it.Call.Anchor] = it.Call
			}
		}
	}
	for _, r := range rep.Batch.Rows {
		if len(r.Calls) != 1 || calls[r.Calls[0]] == nil || len(calls[r.Calls[0]].Steps) == 0 || calls[r.Calls[0]].Passed == 0 || calls[r.Calls[0]].Row != r.Key {
			t.Errorf("row %d: runs %v, call %+v", r.Line, r.Calls, calls[r.Calls[0]])
		}
	}
	// A resume of a finished batch runs nothing.
	code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--resume", id[1], "--session-dir", "")
	if code != 0 || !strings.Contains(errs, "4 skipped") || customersLike(t, site.URL, "batch.example") != 4 {
		t.Fatalf("resume of a finished batch: exit %d\n%s", code, errs)
	}

	// A crashed batch: row 1 ok; row 2 started and, on the site, done;
	// row 3 started and never reached the site; row 4 never started.
	// add_customer's done check (find_customer by email) decides the two
	// uncertain rows: row 2 is not run again, row 3 runs.
	rows2 := filepath.Join(dir, "more.csv")
	_ = os.WriteFile(rows2, []byte("name,email,tier\nCrash One,c1@crash.example,pro\nCrash Two,c2@crash.example,pro\nCrash Three,c3@crash.example,pro\nCrash Four,c4@crash.example,pro\n"), 0o644)
	crashID := "b-crashed"
	cdir := filepath.Join(dir, ".macrokit", "batches", crashID)
	_ = os.MkdirAll(cdir, 0o700)
	for _, who := range []string{"c1", "c2"} {
		code, _, errs := runCLIIn(t, env, "", "run", "add_customer", "--arg", "name=Crash "+map[string]string{"c1": "One", "c2": "Two"}[who], "--arg", "email="+who+"@crash.example", "--arg", "tier=pro", "--session-dir", "")
		if code != 0 {
			t.Fatalf("seeding %s: %s", who, errs)
		}
	}
	j, err := batch.OpenJournal(filepath.Join(cdir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	_ = j.Append(batch.Entry{Type: "start", Key: "c1@crash.example", Line: 2})
	_ = j.Append(batch.Entry{Type: "end", Key: "c1@crash.example", Line: 2, Status: batch.StatusOK})
	_ = j.Append(batch.Entry{Type: "start", Key: "c2@crash.example", Line: 3})
	_ = j.Append(batch.Entry{Type: "start", Key: "c3@crash.example", Line: 4})
	_ = j.Close()
	code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows2, "--key", "email", "--resume", crashID, "--session-dir", filepath.Join(dir, "sessions"))
	if code != 0 || !strings.Contains(errs, "3 ok, 0 failed, 0 unverified, 1 skipped (ok before), 0 uncertain") {
		t.Fatalf("resume of a crashed batch: exit %d\n%s", code, errs)
	}
	for _, who := range []string{"c1", "c2", "c3", "c4"} {
		if n := customersLike(t, site.URL, who+"@crash.example"); n != 1 {
			t.Errorf("%s@crash.example is on the site %d times, want exactly once", who, n)
		}
	}
	lines, _ := os.ReadFile(filepath.Join(cdir, "report.jsonl"))
	if !strings.Contains(string(lines), `"key":"c2@crash.example","status":"ok"`) || !strings.Contains(string(lines), "not run again: find_customer says the effect is there") {
		t.Errorf("the done-checked row's report line does not say why it did not run:\n%s", lines)
	}
	// A second resume decides nothing again: every row is ok now.
	code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows2, "--key", "email", "--resume", crashID, "--session-dir", "")
	if code != 0 || !strings.Contains(errs, "4 skipped") {
		t.Fatalf("second resume: exit %d\n%s", code, errs)
	}
	if n := customersLike(t, site.URL, "crash.example"); n != 4 {
		t.Errorf("crash.example customers = %d, want 4 (each once)", n)
	}
}

// TestBatchInterrupted: Ctrl-C (the command's context cancelled) while
// rows run finishes the row in flight, writes the report with the rest
// not run and says how to resume; the resume runs only those, each once.
func TestBatchInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	t.Parallel()
	site, dir, env := batchSetup(t)
	rows := writeRows(t, dir, 6, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil && customersLike(t, site.URL, "batch.example") < 1 {
			time.Sleep(20 * time.Millisecond)
		}
		cancel() // the first row is stored: "Ctrl-C"
	}()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"macrokit", "batch", "add_customer", "--input", rows, "--key", "email", "--session-dir", ""},
		strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	errs := errb.String()
	id := regexp.MustCompile(`batch (b-\S+):`).FindStringSubmatch(errs)
	if code != 1 || id == nil || !strings.Contains(errs, "interrupted: resume with --resume "+id[1]) || !strings.Contains(errs, "not run") {
		t.Fatalf("interrupted batch: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".macrokit", "batches", id[1], "report.jsonl")); err != nil {
		t.Fatalf("no report after the interruption: %v", err)
	}
	done := customersLike(t, site.URL, "batch.example")
	if done < 1 || done >= 6 {
		t.Fatalf("%d rows stored before the interruption took effect, want at least 1 and not all", done)
	}
	code, _, errs = runCLIIn(t, env, "", "batch", "add_customer", "--input", rows, "--key", "email", "--resume", id[1], "--session-dir", "")
	if code != 0 || !strings.Contains(errs, fmt.Sprintf("%d skipped", done)) {
		t.Fatalf("resume: exit %d\n%s", code, errs)
	}
	for i := 1; i <= 6; i++ {
		if n := customersLike(t, site.URL, fmt.Sprintf("row%d@batch.example", i)); n != 1 {
			t.Errorf("row %d stored %d times, want once", i, n)
		}
	}
}
