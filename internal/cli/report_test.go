package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/internal/report"
	"github.com/macrokit/macrokit-go/runtime"
)

// TestReportCommand runs a batch in-process (a macro that fails for one
// row; no browser), then `report` of the batch, of its session and of
// unknown ids, and `sessions show --html`.
func TestReportCommand(t *testing.T) {
	type args struct {
		Name string `json:"name"`
	}
	greet := &runtime.Macro{Name: "greet", Intent: "greet someone", Risk: runtime.RiskRead,
		Params: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`),
		Handler: func(_ context.Context, _ *runtime.Exec, raw json.RawMessage) (any, error) {
			var a args
			_ = json.Unmarshal(raw, &a)
			if a.Name == "Bob" {
				return nil, &runtime.CallError{Code: runtime.CodeStepFailed, Message: "<b>Bob</b> is not here"}
			}
			return map[string]string{"greeting": "hello " + a.Name}, nil
		}}
	reg, err := runtime.NewRegistry(greet)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "macrokit.yaml")
	logs := filepath.Join(dir, "logs")
	if err := os.WriteFile(conf, []byte("session_dir: logs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := filepath.Join(dir, "rows.csv")
	_ = os.WriteFile(rows, []byte("name\nAda\nBob\nGrace\n"), 0o644)
	cliRun := func(a ...string) (int, string, string) {
		var out, errb bytes.Buffer
		cfg := &Config{Registry: reg, Getenv: func(string) string { return "" }}
		code := Main(context.Background(), cfg, append([]string{"acme", "--config", conf}, a...), strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, _, errs := cliRun("batch", "greet", "--input", rows, "--key", "name")
	if code != 1 || !strings.Contains(errs, "2 ok, 1 failed") {
		t.Fatalf("batch: exit %d\n%s", code, errs)
	}
	id := regexp.MustCompile(`batch (b-\S+):`).FindStringSubmatch(errs)[1]
	sessions, _ := filepath.Glob(filepath.Join(logs, "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("session logs %v", sessions)
	}
	session := strings.TrimSuffix(filepath.Base(sessions[0]), ".jsonl")

	t.Run("batch as JSON", func(t *testing.T) {
		code, out, errs := cliRun("report", id[:len(id)-2], "--format", "json") // a unique prefix
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errs)
		}
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		b := rep.Batch
		if rep.Kind != report.KindBatch || b == nil || b.ID != id || b.Macro != "greet" || b.Counts.OK != 2 || b.Counts.Failed != 1 || len(b.Rows) != 3 {
			t.Fatalf("report %+v", b)
		}
		if b.Rows[1].Key != "Bob" || b.Rows[1].Status != report.RowFailed || b.Rows[1].Error == nil || len(b.Rows[1].Calls) != 1 {
			t.Errorf("Bob's row %+v", b.Rows[1])
		}
		if len(rep.Sessions) != 1 || rep.Sessions[0].ID != session {
			t.Errorf("sessions %+v", rep.Sessions)
		}
	})
	t.Run("batch as HTML", func(t *testing.T) {
		out := filepath.Join(dir, "r", "batch.html")
		code, stdout, errs := cliRun("report", id, "-o", out)
		if code != 0 || strings.TrimSpace(stdout) != out {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, errs)
		}
		html, _ := os.ReadFile(out)
		for _, want := range []string{`id="row-3"`, `data-s="failed"`, "&lt;b&gt;Bob&lt;/b&gt; is not here", `accuracy`} {
			if !strings.Contains(string(html), want) {
				t.Errorf("the report lacks %q", want)
			}
		}
	})
	t.Run("a batch whose last run did not finish reads its journal", func(t *testing.T) {
		bdir := filepath.Join(dir, ".macrokit", "batches", id)
		j, _ := os.ReadFile(filepath.Join(bdir, "journal.jsonl"))
		// A resume that crashed after starting Bob's row again.
		start := `{"type":"start","key":"Bob","line":3,"call_id":"` + id + `-3","session":"` + session + `"}` + "\n"
		if err := os.WriteFile(filepath.Join(bdir, "journal.jsonl"), append(j, start...), 0o600); err != nil {
			t.Fatal(err)
		}
		future := mtimeAfter(t, filepath.Join(bdir, "report.jsonl"))
		_ = os.Chtimes(filepath.Join(bdir, "journal.jsonl"), future, future)
		code, out, errs := cliRun("report", id, "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errs)
		}
		var rep report.Report
		_ = json.Unmarshal([]byte(out), &rep)
		if rep.Batch.Counts.Uncertain != 1 || rep.Batch.Counts.OK != 2 || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "journal") {
			t.Errorf("counts %+v, notes %q", rep.Batch.Counts, rep.Notes)
		}
	})
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "last session as JSON", args: []string{"report", "last", "--format", "json"}, stdout: `"kind": "session"`},
		{name: "unknown session", args: []string{"report", session[:len(session)-1] + "x"}, code: 2, stderr: `did you mean "` + session + `"`},
		{name: "unknown batch", args: []string{"report", id[:len(id)-1] + "x"}, code: 2, stderr: `no batch "` + id[:len(id)-1] + `x" in ` + filepath.Join(dir, ".macrokit", "batches") + ` (did you mean "` + id + `"?)`},
		{name: "no id", args: []string{"report"}, code: 2},
		{name: "json and -o", args: []string{"report", "last", "--format", "json", "-o", "x.html"}, code: 2, stderr: "drop -o"},
		{name: "sessions show -o without --html", args: []string{"sessions", "show", "last", "-o", "x.html"}, code: 2, stderr: "go with --html"},
		{name: "sessions show --html and --format", args: []string{"sessions", "show", "last", "--html", "--format", "json"}, code: 2, stderr: "drop --format"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := cliRun(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d, want %d\nstdout (want %q): %s\nstderr (want %q): %s", code, tc.code, tc.stdout, out, tc.stderr, errs)
			}
		})
	}
	t.Run("sessions show --html", func(t *testing.T) {
		for _, out := range []string{filepath.Join(dir, "show.html"), ""} {
			a := []string{"sessions", "show", session, "--html"}
			if out != "" {
				a = append(a, "-o", out)
			}
			code, stdout, errs := cliRun(a...)
			path := strings.TrimSpace(stdout)
			if code != 0 || (out != "" && path != out) {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, errs)
			}
			if out == "" {
				t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(path)) })
			}
			html, err := os.ReadFile(path)
			// The session ran the batch: the report says where its row table is.
			if err != nil || !strings.Contains(string(html), "session "+session) || !strings.Contains(string(html), "rows of batch "+id) {
				t.Errorf("%s: %v\n%.300s", path, err, html)
			}
		}
	})
}

// mtimeAfter is a modification time later than path's.
func mtimeAfter(t *testing.T, path string) time.Time {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.ModTime().Add(2 * time.Second)
}
