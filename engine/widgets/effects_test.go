package widgets_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/engine/widgets"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// The side-effect tests of issue 12 on the real libraries: a read-back that
// looks in the wrong place must never make the engine repeat an action.
// Each action must reach the server exactly once.

// settled waits (up to 2 s) until the session's count of path is non-zero and
// has stayed put for a moment (an upload or toggle in flight lands).
func settled(ss *widgets.Session, path string) int {
	n := ss.Count(path)
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		time.Sleep(150 * time.Millisecond)
		m := ss.Count(path)
		if m == n && n > 0 {
			return n
		}
		n = m
	}
	return n
}

func oneAttempt(t *testing.T, res *engine.StepResult) {
	t.Helper()
	if res != nil {
		t.Logf("%s: %d attempt(s) in %s", res.Action, len(res.Attempts), res.Duration.Round(time.Millisecond))
	}
	if res != nil && len(res.Attempts) != 1 {
		var s []string
		for _, a := range res.Attempts {
			s = append(s, a.Strategy+":"+string(a.Code))
		}
		t.Errorf("%d attempts %v: the action was repeated", len(res.Attempts), s)
	}
}

// TestEffectsReactSelectPick: react-select 5 shows the chosen option in a
// sibling of its (emptied) input. The select must read it from there and
// pass on the first attempt, and the order then placed carries it, once.
func TestEffectsReactSelectPick(t *testing.T) {
	t.Parallel()
	track(t, "Select", "react-select", "pick an option: read back from the value shown beside the input, never retyped; one order")
	p, ss := open(t, "reactselect")
	res := do(t, p, engine.Step{Action: vocab.ActSelect, Target: &engine.Target{Label: "Customer"}, Options: []string{"Globex"}})
	oneAttempt(t, res)
	if c := res.Checks[0]; c.Status != engine.Passed || c.Actual != "Globex" {
		t.Errorf("read-back %s %q, want passed Globex", c.Status, c.Actual)
	}
	res = do(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Place order"}, Expect: []engine.Condition{
		{Kind: vocab.CondRequestSucceeded, URL: "/api/save", Method: "POST"},
		{Kind: vocab.CondTextPresent, Text: "Order placed", Target: &engine.Target{Role: "status"}},
	}})
	oneAttempt(t, res)
	saves := ss.Effects("/api/save")
	if len(saves) != 1 {
		t.Fatalf("%d orders saved, want 1", len(saves))
	}
	var body struct {
		Customer string `json:"customer"`
	}
	if err := json.Unmarshal(saves[0].Body, &body); err != nil || body.Customer != "Globex" {
		t.Errorf("order body %s (%v), want customer Globex", saves[0].Body, err)
	}
}

// TestEffectsAntdUpload: antd's Upload replaces its file input once it has
// read the file, so the input cannot show the upload. The post-conditions
// decide, and the file is posted once; without post-conditions the step
// fails as unverified, still after one post.
func TestEffectsAntdUpload(t *testing.T) {
	t.Parallel()
	invoice := filepath.Join(t.TempDir(), "invoice.pdf")
	if err := os.WriteFile(invoice, []byte("%PDF-1.4 invoice"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := &engine.Target{Role: "button", Name: "/Upload invoice/"}
	cases := []struct {
		name   string
		expect []engine.Condition
		code   engine.Code
	}{
		{"expect", []engine.Condition{
			{Kind: vocab.CondTextPresent, Text: "invoice.pdf"},
			{Kind: vocab.CondRequestSucceeded, URL: "/api/upload", Method: "POST"},
		}, ""},
		{"no expect", nil, engine.CodeUnverified},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			track(t, "Upload", "antd", "upload one file ("+tc.name+"): exactly one POST")
			p, ss := open(t, "antd")
			res, err := p.Do(context.Background(), engine.Step{Action: vocab.ActUpload, Target: target, Files: []string{invoice}, Expect: tc.expect})
			switch {
			case tc.code == "" && err != nil:
				t.Fatalf("upload: %v", err)
			case tc.code != "" && !engine.IsCode(err, tc.code):
				t.Fatalf("upload: err %v, want %s", err, tc.code)
			}
			oneAttempt(t, res)
			if n := settled(ss, "/api/upload"); n != 1 {
				t.Fatalf("the server received %d uploads, want exactly 1", n)
			}
			if f := ss.Effects("/api/upload")[0].Files; !slices.Equal(f, []string{"invoice.pdf"}) {
				t.Errorf("uploaded %q, want invoice.pdf", f)
			}
		})
	}
}

// TestEffectsSwitchToggle: Element Plus's el-switch hides its input (0x0)
// and keeps its state in aria-checked; antd's Switch is a role=switch
// button. Check and uncheck must each toggle once, no more.
func TestEffectsSwitchToggle(t *testing.T) {
	t.Parallel()
	cases := []struct {
		page, library, label string
	}{
		{"elementplus", "element-plus", "Remote"},
		{"antd", "antd", "Active"},
	}
	for _, tc := range cases {
		t.Run(tc.library, func(t *testing.T) {
			t.Parallel()
			track(t, "Switch", tc.library, "check then uncheck: exactly one toggle each")
			p, ss := open(t, tc.page)
			sw := &engine.Target{Label: tc.label}
			for i, want := range []bool{true, false} {
				action := vocab.ActCheck
				if !want {
					action = vocab.ActUncheck
				}
				res := do(t, p, engine.Step{Action: action, Target: sw})
				oneAttempt(t, res)
				if n := settled(ss, "/api/toggle"); n != i+1 {
					t.Fatalf("after %s the server received %d toggles, want %d", action, n, i+1)
				}
				toggles := ss.Effects("/api/toggle")
				var body struct {
					On bool `json:"on"`
				}
				if err := json.Unmarshal(toggles[i].Body, &body); err != nil || body.On != want {
					t.Errorf("toggle %d body %s (%v), want on=%v", i, toggles[i].Body, err, want)
				}
			}
		})
	}
}
