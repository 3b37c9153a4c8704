package widgets_test

import (
	"testing"

	"github.com/macrokit/macrokit-go/engine"
)

// TestAntdSelect operates antd 6's Select family by label: its ARIA
// listbox is a 0x0 mirror of the active option and its neighbours, so
// the options are picked by visible text in the dropdown a user sees.
func TestAntdSelect(t *testing.T) {
	t.Parallel()
	customer := pick{engine.Target{Label: "Customer"}, []string{"Globex"}}
	cases := []selectCase{
		{widget: "Select", interaction: "pick an option by its visible name",
			picks: []pick{customer}, want: map[string]any{"customer": "Globex"}},
		{widget: "Select", interaction: "pick an option scrolled out of the dropdown",
			picks: []pick{{engine.Target{Label: "Customer"}, []string{"Soylent"}}}, want: map[string]any{"customer": "Soylent"}},
		{widget: "Select", interaction: "pick an option of a long virtual list (53 countries, 10 rendered)",
			picks: []pick{customer, {engine.Target{Label: "Country"}, []string{"Zimbabwe"}}}, want: map[string]any{"customer": "Globex", "country": "Zimbabwe"}},
		{widget: "Select (showSearch, async)", interaction: "search and pick from async options",
			picks: []pick{customer, {engine.Target{Label: "Account manager"}, []string{"Grace Hopper"}}},
			want:  map[string]any{"customer": "Globex", "manager": "Grace Hopper"}},
		{widget: "AutoComplete", interaction: "type and pick a suggestion",
			picks: []pick{customer, {engine.Target{Role: "combobox", Name: "City"}, []string{"Berlin"}}},
			want:  map[string]any{"customer": "Globex", "city": "Berlin"}},
		{widget: "Select mode=tags", interaction: "pick a listed tag and create a new one",
			picks: []pick{customer, {engine.Target{Label: "Tags"}, []string{"vip", "priority"}}},
			want:  map[string]any{"customer": "Globex", "tags": []any{"vip", "priority"}}},
		{widget: "Select mode=multiple", interaction: "multi-select",
			picks: []pick{customer, {engine.Target{Label: "Regions"}, []string{"North", "West"}}},
			want:  map[string]any{"customer": "Globex", "regions": []any{"North", "West"}}},
		{widget: "Select mode=multiple", interaction: "select the same options again: nothing toggles",
			picks: []pick{customer, {engine.Target{Label: "Regions"}, []string{"North", "West"}}, {engine.Target{Label: "Regions"}, []string{"North", "West"}}},
			want:  map[string]any{"customer": "Globex", "regions": []any{"North", "West"}}},
	}
	for _, c := range cases {
		t.Run(c.widget+"/"+c.interaction, func(t *testing.T) {
			t.Parallel()
			c.save = "Save customer"
			runSelect(t, "antd", "antd", c)
		})
	}
}
