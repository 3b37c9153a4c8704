package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/engine/widgets"
	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestRecordElementPlusDepartment records a department saved on the
// real-widget app's Element Plus page. el-cascader opens from a read-only
// input (no role, no ARIA popup): the click on it must be recorded — the
// recorder used to take it for a click that only focuses a field, and the
// spec clicked "EMEA" with no menu open — and its three levels become one
// select of a path. The spec equals the golden and, replayed with another
// name, department and path, passes and saves exactly once more.
func TestRecordElementPlusDepartment(t *testing.T) {
	remote := browsertest.StartRemote(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("the widget app needs npm (docs: engine/widgets/README.md)")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dist, err := widgets.Build(ctx, filepath.Join("..", "..", "engine", "widgets", "app"))
	if err != nil {
		t.Fatal(err)
	}
	srv := widgets.NewServer(dist)
	defer srv.Close()
	ss := srv.Session() // a fresh server's first: s1, as in the golden
	url := ss.URL("elementplus")
	macros := t.TempDir()

	r := startRecording(t, ctx, remote.WS, url, "save_department", "--url", url, "--macros", macros, "--env", "WIDGETS_URL="+srv.URL, "--run=false")
	r.click(".el-input input", "")
	r.typeText("Legal ops")
	r.click(".el-select", "Select")
	r.waitFor("  + fill", 1) // leaving Name
	r.waitFor("  + click", 1)
	r.click(".el-select-dropdown__item", "Legal")
	r.waitFor("  + click", 2)
	r.click(".el-cascader input", "")
	r.waitFor("  + click", 3)
	for i, level := range []string{"EMEA", "Germany", "Berlin"} {
		r.click(".el-cascader-node__label", level)
		r.waitFor("  + click", 4+i)
	}
	r.click("button", "Save department")
	r.waitFor("  + click", 7)
	if code := r.end(); code != 0 {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, r.stdout.String(), r.stderr.String())
	}
	if n := ss.Count("/api/save"); n != 1 {
		t.Fatalf("the demonstration saved %d department(s), want 1", n)
	}
	out := filepath.Join(macros, "save_department.yaml")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, r.stderr.String())
	}
	goldenRecord(t, "save_department.yaml", data)
	for _, want := range []string{
		"select: {target: {label: Region}, path: \"{{ region }}\"}",
		"region: [EMEA, Germany, Berlin]",
		"request_succeeded: {url: /api/save, method: POST}",
		"list_count_delta: {target: {testid: department-row}, delta: 1}",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the recorded spec lacks %s\nrecorded:\n%s", want, r.stderr.String())
		}
	}
	if strings.Contains(string(data), "menuitem") {
		t.Errorf("the recorded spec clicks a menu entry instead of selecting a path:\n%s", data)
	}

	b, err := engine.Launch(ctx, engine.Options{ControlURL: remote.WS})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res := replaySpec(t, ctx, out, runtime.ContextPages(b), map[string]string{"WIDGETS_URL": srv.URL},
		map[string]any{"name": "Tokyo sales", "new_department": "Sales", "region": []any{"APAC", "Japan", "Tokyo"}})
	if !res.OK || res.Verdict != sessionlog.VerdictPassed {
		var buf bytes.Buffer
		PrintOutcome(&buf, res)
		t.Fatalf("replay: %s", buf.String())
	}
	saves := ss.Effects("/api/save")
	if len(saves) != 2 {
		t.Fatalf("after the replay the session saved %d time(s), want 2: %+v", len(saves), saves)
	}
	for _, want := range []string{`"name":"Tokyo sales"`, `"department":"Sales"`, `"region":["apac","jp","tyo"]`} {
		if !bytes.Contains(saves[1].Body, []byte(want)) {
			t.Errorf("the replayed save %s lacks %s", saves[1].Body, want)
		}
	}
}
