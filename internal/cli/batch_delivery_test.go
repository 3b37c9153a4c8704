package cli

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// deliveryRow is a report.jsonl line, as the report's readers see it.
type deliveryRow struct {
	Line   int    `json:"line"`
	Key    string `json:"key"`
	Status string `json:"status"`
	CallID string `json:"call_id"`
	Error  *struct {
		Code string `json:"code"`
	} `json:"error"`
	Failed []struct {
		Step string `json:"step"`
		Kind string `json:"kind"`
	} `json:"failed_checks"`
}

// faultEmail is row i's email in the delivery figure: every 10th row from
// the 4th fakes success, every 10th from the 8th has a flaky Save, the rest
// are plain.
func faultEmail(i int) (email, fault string) {
	switch i % 10 {
	case 4:
		return fmt.Sprintf("row%d@fake.example", i), "fakeSuccess"
	case 8:
		return fmt.Sprintf("row%d@flaky.example", i), "flaky"
	}
	return fmt.Sprintf("row%d@good.example", i), ""
}

func readReport(t *testing.T, path string) []deliveryRow {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []deliveryRow
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r deliveryRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// saveAttempts maps each call id in the session logs of dir to how many
// times the engine tried that call's step at path.
func saveAttempts(t *testing.T, dir, path string) map[string]int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	out := map[string]int{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = sessionlog.Read(fh, func(r sessionlog.Record) error {
			if r.Type != sessionlog.RecToolResult {
				return nil
			}
			for _, s := range r.Steps {
				if s.Path == path {
					out[r.CallID] = s.Attempts
				}
			}
			return nil
		})
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestBatchDeliveryFigure is docs/batch.md's delivery figure: 50 rows of
// add_customer, behind the demo site's login, with faults mixed into the
// rows by email domain (demosite.InjectRule): 5 rows whose create the site
// fakes (201, nothing stored, no new row on the page) and 5 whose Save
// click the page swallows once. Every fake success is reported failed with
// its failing checks, every flaky row ends ok after a retried click, and
// the site's counters show no create applied twice.
func TestBatchDeliveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	t.Parallel()
	rules, err := demosite.ParseInjectRules("fake.example=fakeSuccess", "flaky.example=flaky")
	if err != nil {
		t.Fatal(err)
	}
	site := demosite.New(demosite.Options{RequireLogin: true, InjectRules: rules})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	_ = os.WriteFile(conf, nil, 0o644)
	env := map[string]string{EnvConfig: conf, "DEMO_URL": srv.URL,
		"DEMO_USER": demosite.DefaultUsername, "DEMO_PASSWORD": demosite.DefaultPassword}

	const n = 50
	var csv strings.Builder
	csv.WriteString("name,email,tier\n")
	fault := map[string]string{} // email -> fault
	for i := 1; i <= n; i++ {
		email, f := faultEmail(i)
		fault[email] = f
		fmt.Fprintf(&csv, "Delivery Person %d,%s,pro\n", i, email)
	}
	rowsPath := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(rowsPath, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(dir, "sessions")
	code, _, errs := runCLIIn(t, env, "", "batch", "add_customer", "--input", rowsPath, "--concurrency", "2", "--key", "email", "--session-dir", sessions)
	if code != 1 || !strings.Contains(errs, "50 row(s): 45 ok, 5 failed, 0 unverified, 0 skipped (ok before), 0 uncertain, 0 not run; accuracy 90.0%") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	id := regexp.MustCompile(`batch (b-\S+):`).FindStringSubmatch(errs)
	if id == nil {
		t.Fatalf("no batch id in %s", errs)
	}
	report := readReport(t, filepath.Join(dir, ".macrokit", "batches", id[1], "report.jsonl"))
	if len(report) != n {
		t.Fatalf("report has %d rows, want %d", len(report), n)
	}
	attempts := saveAttempts(t, sessions, "steps[5]") // the Save click
	counted := map[string]int{}
	for _, r := range report {
		f := fault[r.Key]
		counted[f]++
		switch f {
		case "fakeSuccess":
			kinds := map[string]bool{}
			for _, c := range r.Failed {
				kinds[c.Kind] = true
			}
			if r.Status != "failed" || !kinds["list_count_delta"] || kinds["request_succeeded"] {
				t.Errorf("fake success %s: status %s, failing checks %+v; want failed on list_count_delta (the 201 itself passes)", r.Key, r.Status, r.Failed)
			}
			if got := site.CustomerCount(r.Key); got != 0 {
				t.Errorf("fake success %s is stored %d times", r.Key, got)
			}
		case "flaky":
			if r.Status != "ok" || attempts[r.CallID] < 2 {
				t.Errorf("flaky %s: status %s after %d Save attempts; want ok after a retried click", r.Key, r.Status, attempts[r.CallID])
			}
		default:
			if r.Status != "ok" || attempts[r.CallID] != 1 {
				t.Errorf("plain %s: status %s after %d Save attempts; want ok at the first", r.Key, r.Status, attempts[r.CallID])
			}
		}
		if f != "fakeSuccess" {
			if got := site.CustomerCount(r.Key); got != 1 {
				t.Errorf("%s (%s) is stored %d times, want exactly once", r.Key, r.Status, got)
			}
		}
	}
	if counted["fakeSuccess"] != 5 || counted["flaky"] != 5 || counted[""] != 40 {
		t.Errorf("rows by fault %v", counted)
	}
	st := site.Stats()
	if st.CustomersCreated != 45 || st.CustomersFaked != 5 || st.CustomerConflicts != 0 || st.Logins != 1 {
		t.Errorf("site counted %+v; want 45 created, 5 faked (one POST each), 0 conflicts, 1 login", st)
	}
	t.Logf("delivery figure: %d rows; fakeSuccess %d reported failed, flaky %d ok, plain %d ok; site: %d created, %d faked, %d conflicts, %d login(s)",
		n, counted["fakeSuccess"], counted["flaky"], counted[""], st.CustomersCreated, st.CustomersFaked, st.CustomerConflicts, st.Logins)
}
