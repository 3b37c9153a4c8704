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

// TestRecordReactSelect records an order on the real-widget app's
// react-select page (engine/widgets, built once per machine and cached):
// clicking the Customer control and then an option of its menu becomes one
// select of a parameter typed as the enum of the options shown; two picks
// in the multi Products, its menu opened for each, one select of a list;
// and Place order gets its POST and the grown list as checks. The spec
// equals the golden and, replayed with another customer and other
// products, passes and saves one order of them.
func TestRecordReactSelect(t *testing.T) {
	remote := browsertest.StartRemote(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("the widget app needs npm (docs: engine/widgets/README.md)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dist, err := widgets.Build(ctx, filepath.Join("..", "..", "engine", "widgets", "app"))
	if err != nil {
		t.Fatal(err)
	}
	srv := widgets.NewServer(dist)
	defer srv.Close()
	ss := srv.Session() // a fresh server's first: s1, as in the golden
	url := ss.URL("reactselect")
	macros := t.TempDir()

	r := startRecording(t, ctx, remote.WS, url, "place_order", "--url", url, "--macros", macros, "--env", "WIDGETS_URL="+srv.URL, "--run=false")
	r.click("#customer-input", "")
	r.waitFor("  + click", 1)
	r.click("[role=option]", "Globex")
	r.waitFor("  + click", 2)
	// Products is multi: its menu closes after each pick, so it is opened
	// again for the second.
	for i, product := range []string{"Anvil", "Giant magnet"} {
		r.click("#items-input", "")
		r.waitFor("  + click", 3+2*i)
		r.click("[role=option]", product)
		r.waitFor("  + click", 4+2*i)
	}
	r.click("button", "Place order")
	r.waitFor("  + click", 7)
	if code := r.end(); code != 0 {
		t.Fatalf("record: exit %d\nstdout: %s\nstderr: %s", code, r.stdout.String(), r.stderr.String())
	}
	if n := ss.Count("/api/save"); n != 1 {
		t.Fatalf("the demonstration saved %d order(s), want 1", n)
	}
	out := filepath.Join(macros, "place_order.yaml")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, r.stderr.String())
	}
	goldenRecord(t, "place_order.yaml", data)
	for _, want := range []string{"select: {target: {label: Customer}, option: \"{{ customer }}\"}", "request_succeeded: {url: /api/save, method: POST}",
		"select: {target: {label: Products}, options: \"{{ products }}\"}", "products: [Anvil, Giant magnet]",
		"list_count_delta: {target: {testid: order-row}, delta: 1}"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the recorded spec lacks %s", want)
		}
	}

	b, err := engine.Launch(ctx, engine.Options{ControlURL: remote.WS})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res := replaySpec(t, ctx, out, runtime.ContextPages(b), map[string]string{"WIDGETS_URL": srv.URL}, map[string]any{"customer": "Initech", "products": []any{"Rocket skates", "Tornado seeds"}})
	if !res.OK || res.Verdict != sessionlog.VerdictPassed {
		var buf bytes.Buffer
		PrintOutcome(&buf, res)
		t.Fatalf("replay: %s", buf.String())
	}
	saves := ss.Effects("/api/save")
	if len(saves) != 2 || !bytes.Contains(saves[1].Body, []byte(`"customer":"Initech"`)) || !bytes.Contains(saves[1].Body, []byte(`"items":["Rocket skates","Tornado seeds"]`)) {
		t.Errorf("after the replay the session saved %+v, want a second order for Initech of Rocket skates and Tornado seeds", saves)
	}
}
