package widgets_test

import (
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestSelectFamilyKeepsWorking: the selects that worked before popups
// and displayed values were read (Headless UI Listbox and Combobox,
// inside a dialog) still pick by visible name and save once.
func TestSelectFamilyKeepsWorking(t *testing.T) {
	t.Parallel()
	cases := []struct {
		page, library, open string
		opened              engine.Target // what the opened dialog shows
		c                   selectCase
	}{
		{"headless", "@headlessui/react", "Add member", engine.Target{Label: "Team"}, selectCase{widget: "Listbox + Combobox (in a Dialog)", interaction: "pick by visible name; type to filter and pick",
			picks: []pick{{engine.Target{Label: "Team"}, []string{"Growth"}}, {engine.Target{Label: "Client"}, []string{"Umbrella"}}},
			save:  "Add", want: map[string]any{"team": "Growth", "client": "Umbrella"}}},
	}
	for _, tc := range cases {
		t.Run(tc.page, func(t *testing.T) {
			t.Parallel()
			tc.c.before = []engine.Step{{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: tc.open},
				Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &tc.opened}}}}
			runSelect(t, tc.page, tc.library, tc.c)
		})
	}
}
