package widgets_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/engine/widgets"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// pick is one select step of a case: a target a user would write and the
// options they see.
type pick struct {
	target  engine.Target
	options []string
}

// selectCase is one row of a select-family test: the picks, the form's
// save button, and the fields the saved body must hold.
type selectCase struct {
	widget, interaction string
	before              []engine.Step // steps run first (open the dialog)
	fill                []pick        // fields filled first (options[0] is the value; nil: "Test")
	picks               []pick
	save                string         // the save button's name
	want                map[string]any // fields of the saved body
}

// runSelect runs the picks on a fresh page, then saves, and asserts on the
// evidence: each select reads back the options it chose (what the widget
// displays), a select is repeated only after a read-back that showed
// nothing applied, and the server received exactly one
// save whose body holds the wanted values.
func runSelect(t *testing.T, page, library string, c selectCase) {
	t.Helper()
	track(t, c.widget, library, c.interaction)
	p, ss := open(t, page)
	for _, st := range c.before {
		do(t, p, st)
	}
	for _, f := range c.fill {
		tg, v := f.target, "Test"
		if len(f.options) > 0 {
			v = f.options[0]
		}
		do(t, p, engine.Step{Action: vocab.ActFill, Target: &tg, Value: v})
	}
	for _, pk := range c.picks {
		tg := pk.target
		res := do(t, p, engine.Step{Action: vocab.ActSelect, Target: &tg, Options: pk.options})
		t.Logf("select %s %q: %s (act %s, actionability %s, settle %s), notes %q", tg.String(), pk.options, res.Duration.Round(time.Millisecond), res.Act.Duration.Round(time.Millisecond), res.Act.ActionabilityTime.Round(time.Millisecond), res.Act.SettleTime.Round(time.Millisecond), res.Act.Notes)
		// A repeat is allowed only after the engine read back that the
		// attempt before had not applied the options (value_not_applied);
		// the exact read-back below and the saved body then prove no
		// option was toggled twice.
		for _, a := range res.Attempts[:len(res.Attempts)-1] {
			if a.Code != engine.CodeValueNotApplied {
				t.Errorf("select %s %q was repeated after %s (%+v): only a read-back showing nothing applied may lead to a repeat", tg.String(), pk.options, a.Code, res.Attempts)
			}
		}
		if res.Act == nil || res.Act.Unsure != "" || !sameFold(res.Act.SelectedAfter, pk.options) {
			t.Errorf("select %s %q read back %+v", tg.String(), pk.options, res.Act)
		}
	}
	body := saveOnce(t, p, ss, c.save)
	for k, v := range c.want {
		if !reflect.DeepEqual(body[k], v) {
			t.Errorf("saved %s = %#v, want %#v (body %v)", k, body[k], v, body)
		}
	}
}

// saveOnce clicks the form's save button, waits for the save to succeed
// and returns the one body the server received.
func saveOnce(t *testing.T, p *engine.Page, ss *widgets.Session, button string) map[string]any {
	t.Helper()
	do(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: button},
		Expect: []engine.Condition{{Kind: vocab.CondRequestSucceeded, URL: "/api/save", Method: "POST"}}})
	return onlyEffect(t, ss, "/api/save")
}

// sameFold says whether got and want hold the same names (ignoring case,
// spacing and order: a multiple select shows its chips in its own order).
func sameFold(got, want []string) bool {
	key := func(l []string) string {
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = strings.ToLower(strings.Join(strings.Fields(s), " "))
		}
		slices.Sort(out)
		return strings.Join(out, "\x00")
	}
	return len(got) == len(want) && key(got) == key(want)
}
