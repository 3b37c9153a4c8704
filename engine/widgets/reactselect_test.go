package widgets_test

import (
	"testing"

	"github.com/macrokit/macrokit-go/engine"
)

// TestReactSelect operates react-select 5 by label. react-select shows
// the chosen value in a sibling of its input (singleValue, multiValue
// chips), which is what the select reads back.
func TestReactSelect(t *testing.T) {
	t.Parallel()
	cases := []selectCase{
		{widget: "Select", interaction: "pick an option by its visible name",
			picks: []pick{{engine.Target{Label: "Customer"}, []string{"Initech"}}}, want: map[string]any{"customer": "Initech"}},
		{widget: "AsyncSelect", interaction: "search and pick from async options",
			picks: []pick{{engine.Target{Label: "Account"}, []string{"Ken Thompson"}}}, want: map[string]any{"account": "Ken Thompson"}},
		{widget: "CreatableSelect isMulti", interaction: "pick a listed label and create a new one",
			picks: []pick{{engine.Target{Role: "combobox", Name: "Labels"}, []string{"gift", "fragile"}}}, want: map[string]any{"labels": []any{"gift", "fragile"}}},
		{widget: "Select isMulti", interaction: "multi-select",
			picks: []pick{{engine.Target{Label: "Products"}, []string{"Anvil", "Giant magnet"}}}, want: map[string]any{"items": []any{"Anvil", "Giant magnet"}}},
		{widget: "Select isMulti", interaction: "select the same options again: nothing toggles",
			picks: []pick{{engine.Target{Label: "Products"}, []string{"Anvil", "Giant magnet"}}, {engine.Target{Label: "Products"}, []string{"Giant magnet", "Anvil"}}},
			want:  map[string]any{"items": []any{"Anvil", "Giant magnet"}}},
	}
	for _, c := range cases {
		t.Run(c.widget+"/"+c.interaction, func(t *testing.T) {
			t.Parallel()
			c.save = "Place order"
			runSelect(t, "reactselect", "react-select", c)
		})
	}
}
