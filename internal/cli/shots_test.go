package cli

import (
	"bytes"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestRunScreenshots: run --screenshots on the demo site leaves PNG files
// beside the session log, each named by a step of the tool_result record:
// always before and after images, on-failure only the failed step's after
// image.
func TestRunScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	for _, tc := range []struct {
		mode, inject string
		code         int
	}{
		{"always", "", 0},
		{"on-failure", "fakeSuccess", 1},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			srv := httptest.NewServer(demosite.New(demosite.Options{Inject: tc.inject}).Handler())
			defer srv.Close()
			dir := t.TempDir()
			code, stdout, stderr := runCLI(t, map[string]string{"DEMO_URL": srv.URL}, "run", "add_customer",
				"--arg", "name=Ada Lovelace", "--arg", "email=ada@example.com", "--arg", "tier=pro", "--session-dir", dir, "--screenshots", tc.mode)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
			if len(logs) != 1 {
				t.Fatalf("session logs: %v", logs)
			}
			id := strings.TrimSuffix(filepath.Base(logs[0]), ".jsonl")
			files, _ := filepath.Glob(filepath.Join(dir, id+".shots", "run-1", "*.png"))
			var onDisk []string
			for _, f := range files {
				rel, _ := filepath.Rel(dir, f)
				onDisk = append(onDisk, filepath.ToSlash(rel))
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := png.Decode(bytes.NewReader(b)); err != nil {
					t.Errorf("%s: %v", rel, err)
				}
			}
			sess, err := sessionlog.ReadFile(logs[0])
			if err != nil {
				t.Fatal(err)
			}
			var named []string
			befores, failedAfters := 0, 0
			for _, r := range sess.Records {
				if r.Type != sessionlog.RecToolResult {
					continue
				}
				for _, s := range r.Steps {
					if tc.mode == "always" && isPageKind(s.Kind) && (s.Shots == nil || s.Shots.After == "") {
						t.Errorf("%s (%s): no after image under always", s.Path, s.Kind)
					}
					if s.Shots == nil {
						continue
					}
					if s.Shots.Before != "" {
						named = append(named, s.Shots.Before)
						befores++
					}
					if s.Shots.After != "" {
						named = append(named, s.Shots.After)
						if s.Status == "failed" {
							failedAfters++
						}
					}
					if tc.mode == "on-failure" && (s.Status != "failed" || s.Shots.Before != "") {
						t.Errorf("%s (%s, %s): shots %+v under on-failure", s.Path, s.Kind, s.Status, *s.Shots)
					}
				}
			}
			sort.Strings(named)
			t.Logf("images: %v", onDisk)
			if len(onDisk) == 0 || strings.Join(named, " ") != strings.Join(onDisk, " ") {
				t.Errorf("the log names %v, the directory holds %v", named, onDisk)
			}
			switch tc.mode {
			case "always":
				if befores == 0 {
					t.Error("no before images under always")
				}
			case "on-failure":
				if failedAfters != 1 {
					t.Errorf("%d after images of failed steps, want 1", failedAfters)
				}
			}
		})
	}
}

// isPageKind reports whether a step kind is a page action (the ones that
// take screenshots).
func isPageKind(k string) bool {
	switch k {
	case "goto", "click", "fill", "type", "select", "check", "uncheck", "press", "hover", "upload", "wait", "scroll":
		return true
	}
	return false
}

// TestScreenshotsFlag: a --screenshots value outside the modes, or a mode
// with no session log to write beside, is a usage error on every command
// that has the flag.
func TestScreenshotsFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"run bad value", []string{"run", "find_customer", "--arg", "query=x", "--screenshots", "sometimes"}, "never, on-failure or always"},
		{"batch bad value", []string{"batch", "find_customer", "--input", "rows.csv", "--screenshots", "sometimes"}, "never, on-failure or always"},
		{"serve bad value", []string{"serve", "--http", "127.0.0.1:0", "--screenshots", "sometimes"}, "never, on-failure or always"},
		{"run without a session log", []string{"run", "find_customer", "--arg", "query=x", "--session-dir=", "--screenshots", "always"}, "needs --session-dir"},
		{"serve without a session log", []string{"serve", "--http", "127.0.0.1:0", "--session-dir=", "--screenshots", "on-failure"}, "needs --session-dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want 2 with %q\nstdout:\n%s\nstderr:\n%s", code, tc.want, stdout, stderr)
			}
		})
	}
}
