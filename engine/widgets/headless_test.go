package widgets_test

import (
	"encoding/json"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/engine/widgets"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestHeadlessAddMember fills the "Add member" dialog (Listbox, Combobox,
// Switch) and proves one toggle and one save with those values. The client
// is picked the two ways a user would write it: type and click the option,
// or one select step.
func TestHeadlessAddMember(t *testing.T) {
	t.Parallel()
	initech := &engine.Target{Role: "option", Name: "Initech"}
	client := &engine.Target{Label: "Client"}
	cases := []struct {
		name, interaction string
		pick              []engine.Step
	}{
		{"type and click", "fill a dialog (pick, type and click an option, toggle) and add once", []engine.Step{
			{Action: vocab.ActFill, Target: client, Value: "ini", Expect: []engine.Condition{
				{Kind: vocab.CondElementExists, Target: initech},
				{Kind: vocab.CondElementGone, Target: &engine.Target{Role: "option", Name: "Globex"}},
			}},
			{Action: vocab.ActClick, Target: initech, Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: client, Value: "Initech"}}},
		}},
		{"select", "fill a dialog (pick, select in a combobox, toggle) and add once", []engine.Step{
			{Action: vocab.ActSelect, Target: client, Options: []string{"Initech"},
				Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: client, Value: "Initech"}}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			track(t, "Dialog + Listbox + Combobox + Switch", "@headlessui/react", c.interaction)
			p, ss := open(t, "headless")
			doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Add member"},
				Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &engine.Target{Role: "dialog", Name: "Add member"}}}})
			doEv(t, p, engine.Step{Action: vocab.ActSelect, Target: &engine.Target{Label: "Team"}, Options: []string{"Growth"},
				Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Target: &engine.Target{Label: "Team"}, Text: "Growth"}}})
			for _, st := range c.pick {
				doEv(t, p, st)
			}
			headlessToggleAndAdd(t, p, ss)
		})
	}
}

func headlessToggleAndAdd(t *testing.T, p *engine.Page, ss *widgets.Session) {
	t.Helper()
	doEv(t, p, engine.Step{Action: vocab.ActCheck, Target: &engine.Target{Label: "On call"},
		Expect: []engine.Condition{
			{Kind: vocab.CondElementState, Target: &engine.Target{Role: "switch", Name: "On call"}, State: "checked"},
			{Kind: vocab.CondRequestSucceeded, URL: "/api/toggle", Method: "POST"},
		}})
	wantCount(t, ss, "/api/toggle", 1)
	doEv(t, p, savedClick("Add", "member-row", "Member added"))
	wantCount(t, ss, "/api/toggle", 1)
	saves := ss.Effects("/api/save")
	if len(saves) != 1 {
		t.Fatalf("POST /api/save received %d times, want exactly 1", len(saves))
	}
	var got struct {
		Team   string `json:"team"`
		Client string `json:"client"`
		OnCall bool   `json:"oncall"`
	}
	if err := json.Unmarshal(saves[0].Body, &got); err != nil || got.Team != "Growth" || got.Client != "Initech" || !got.OnCall {
		t.Errorf("save body %s, want team Growth, client Initech, oncall true (err %v)", saves[0].Body, err)
	}
	var toggled struct {
		On bool `json:"on"`
	}
	if tg := ss.Effects("/api/toggle"); len(tg) == 1 && (json.Unmarshal(tg[0].Body, &toggled) != nil || !toggled.On) {
		t.Errorf("toggle body %s, want on: true", tg[0].Body)
	}
}

// TestHeadlessMenuAction opens the "Actions" menu and runs "Export".
func TestHeadlessMenuAction(t *testing.T) {
	t.Parallel()
	track(t, "Menu", "@headlessui/react", "open a menu and run an item")
	p, ss := open(t, "headless")
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Actions"},
		Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &engine.Target{Role: "menuitem", Name: "Export"}}}})
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "menuitem", Name: "Export"},
		Expect: []engine.Condition{
			{Kind: vocab.CondTextPresent, Target: &engine.Target{Role: "status"}, Text: "Exported"},
			{Kind: vocab.CondElementGone, Target: &engine.Target{Role: "menu"}},
		}})
	if n := len(ss.Effects("")); n != 0 {
		t.Errorf("Export sent %d requests to the API, want none", n)
	}
}
