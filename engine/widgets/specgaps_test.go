package widgets_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// The spec-language gaps of issue 12 on the real widgets: a cascader path,
// per-keystroke typing into a sectioned date field, a container scroll by a
// distance in a virtualized list. Each test
// counts what the server received: exactly one save (or archive).

func saveStep(name string) engine.Step {
	return engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: name},
		Expect: []engine.Condition{{Kind: vocab.CondRequestSucceeded, URL: "/api/save", Method: "POST"}}}
}

func TestSelectPathCascaders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		widget, library, page string
		before                []engine.Step // required fields the form validates first
		target                engine.Target
		path                  []string
		shown                 string
		save                  string
		field                 string
		want                  []any
	}{
		{"Cascader", "antd", "antd",
			// antd's Select fails today for select (its listbox lists only
			// the active option); a one-level path opens it and picks the
			// visible "Globex" the way a person does.
			[]engine.Step{{Action: vocab.ActSelect, Target: &engine.Target{Label: "Customer"}, Path: []string{"Globex"}}},
			engine.Target{Label: "Location"}, []string{"Zhejiang", "Hangzhou", "West Lake"}, "Zhejiang / Hangzhou / West Lake",
			"Save customer", "location", []any{"zhejiang", "hangzhou", "xihu"}},
		{"el-cascader", "element-plus", "elementplus",
			[]engine.Step{{Action: vocab.ActFill, Target: &engine.Target{Label: "Name"}, Value: "Platform"}},
			engine.Target{Label: "Region"}, []string{"EMEA", "Germany", "Berlin"}, "EMEA / Germany / Berlin",
			"Save department", "region", []any{"emea", "de", "ber"}},
	}
	for _, c := range cases {
		t.Run(c.library, func(t *testing.T) {
			t.Parallel()
			track(t, c.widget, c.library, "pick a cascader path by visible names (select path)")
			p, ss := open(t, c.page)
			for _, s := range c.before {
				do(t, p, s)
			}
			res := do(t, p, engine.Step{Action: vocab.ActSelect, Target: &c.target, Path: c.path})
			if got := res.Act.SelectedAfter; len(got) != 1 || got[0] != c.shown {
				t.Errorf("the control displays %q, want %q (notes %v)", got, c.shown, res.Act.Notes)
			}
			t.Logf("path of %d levels: %s (notes %v)", len(c.path), res.Duration, res.Act.Notes)
			do(t, p, saveStep(c.save))
			body := onlyEffect(t, ss, "/api/save")
			if !reflect.DeepEqual(body[c.field], c.want) {
				t.Errorf("saved %s = %v, want %v (body %v)", c.field, body[c.field], c.want, body)
			}
		})
	}
}

func TestTypeSectionedDateField(t *testing.T) {
	t.Parallel()
	track(t, "DatePicker (sectioned field)", "@mui/x-date-pickers", "type a date key by key (type)")
	p, ss := open(t, "mui")
	do(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Request access"}})
	do(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "System"}, Value: "Billing"})
	// The label names the sectioned group, its hidden input and the
	// outline's <fieldset>: the engine narrows it to the group a user types
	// into.
	field := &engine.Target{Label: "Access expires"}
	// The sections render on separate lines ("2027-", "03-", "15"), so no
	// text condition sees the whole date: the saved body is the proof.
	res := do(t, p, engine.Step{Action: vocab.ActType, Target: field, Value: "2027-03-15"})
	if len(res.Attempts) != 1 {
		t.Errorf("%d attempts, want 1: %+v", len(res.Attempts), res.Attempts)
	}
	t.Logf("type of 10 keys: %s (notes %v)", res.Duration, res.Act.Notes)
	do(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Submit"},
		Expect: []engine.Condition{{Kind: vocab.CondRequestSucceeded, URL: "/api/save", Method: "POST"}}})
	body := onlyEffect(t, ss, "/api/save")
	if body["expires"] != "2027-03-15" || body["name"] != "Billing" {
		t.Errorf("saved %v, want expires 2027-03-15 for Billing", body)
	}
}

func TestScrollVirtualListByDistance(t *testing.T) {
	t.Parallel()
	track(t, "List (5,000 rows)", "react-window", "scroll the list's own scroller by 4,000 rows, then a row action (scroll target + delta_y)")
	p, ss := open(t, "virtual")
	const row = 4001
	list := &engine.Target{Role: "list", Within: &engine.Target{Role: "region", Name: "Ticket queue"}}
	res := do(t, p, engine.Step{Action: vocab.ActScroll, Target: list, DeltaY: 36 * (row - 1)})
	if res.Act.ScrollAfter == nil || res.Act.ScrollAfter.Y != 36*(row-1) {
		t.Errorf("list scrolled to %+v, want y=%d", res.Act.ScrollAfter, 36*(row-1))
	}
	t.Logf("scroll by %d px: %s", 36*(row-1), res.Duration)
	name := fmt.Sprintf("Archive ticket %d", row)
	do(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: name},
		Expect: []engine.Condition{{Kind: vocab.CondRequestSucceeded, URL: "/api/archive", Method: "POST"}}})
	body := onlyEffect(t, ss, "/api/archive")
	if body["id"] != float64(row) {
		t.Errorf("archived %v, want ticket %d", body["id"], row)
	}
}
