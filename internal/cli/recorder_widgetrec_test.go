package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/engine/widgets"
	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// widgetRecording is `record` running on a page of the real-widget app
// (engine/widgets, built once per machine and cached), served by a fresh
// server whose first session (s1, as the goldens say) counts the saves.
type widgetRecording struct {
	*recording
	remote *browsertest.Remote
	srv    *widgets.Server
	ss     *widgets.Session
	macros string
}

// recordWidgets starts recording macro name on the app's page: --run=false,
// the app's URL as $WIDGETS_URL. It skips without npm, and runs the test in
// parallel with the other heavy ones.
func recordWidgets(t *testing.T, page, name string) *widgetRecording {
	t.Helper()
	remote := browsertest.StartRemote(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("the widget app needs npm (docs: engine/widgets/README.md)")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	dist, err := widgets.Build(ctx, filepath.Join("..", "..", "engine", "widgets", "app"))
	if err != nil {
		t.Fatal(err)
	}
	srv := widgets.NewServer(dist)
	t.Cleanup(srv.Close)
	ss := srv.Session()
	url := ss.URL(page)
	macros := t.TempDir()
	r := startRecording(t, ctx, remote.WS, url, name, "--url", url, "--macros", macros, "--env", "WIDGETS_URL="+srv.URL, "--run=false")
	return &widgetRecording{recording: r, remote: remote, srv: srv, ss: ss, macros: macros}
}

// finish ends the recording, checks the demonstration saved once, and
// returns the spec written, compared with testdata/record/NAME.yaml.
func (w *widgetRecording) finish(name string) []byte {
	t := w.t
	t.Helper()
	if code := w.end(); code != 0 {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, w.stdout.String(), w.stderr.String())
	}
	if n := w.ss.Count("/api/save"); n != 1 {
		t.Fatalf("the demonstration saved %d time(s), want 1", n)
	}
	data, err := os.ReadFile(filepath.Join(w.macros, name+".yaml"))
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, w.stderr.String())
	}
	goldenRecord(t, name+".yaml", data)
	return data
}

// replay runs the written spec once with args (approved, if dangerous):
// it must pass, and the server must then hold exactly one more save,
// whose body holds each of want.
func (w *widgetRecording) replay(name string, args map[string]any, want ...string) {
	t := w.t
	t.Helper()
	b, err := engine.Launch(w.ctx, engine.Options{ControlURL: w.remote.WS})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res := replaySpec(t, w.ctx, filepath.Join(w.macros, name+".yaml"), runtime.ContextPages(b), map[string]string{"WIDGETS_URL": w.srv.URL}, args)
	if !res.OK || res.Verdict != sessionlog.VerdictPassed {
		var buf bytes.Buffer
		PrintOutcome(&buf, res)
		t.Fatalf("replay: %s", buf.String())
	}
	saves := w.ss.Effects("/api/save")
	if len(saves) != 2 {
		t.Fatalf("after the replay the session saved %d time(s), want 2: %+v", len(saves), saves)
	}
	for _, s := range want {
		if !bytes.Contains(saves[1].Body, []byte(s)) {
			t.Errorf("the replayed save %s lacks %s", saves[1].Body, s)
		}
	}
}

// lacks reports each of want the spec does not hold.
func (w *widgetRecording) lacks(spec []byte, want ...string) {
	w.t.Helper()
	for _, s := range want {
		if !bytes.Contains(spec, []byte(s)) {
			w.t.Errorf("the recorded spec lacks %s\nrecorded:\n%s", s, w.stderr.String())
		}
	}
}
