package widgets_test

import (
	"testing"

	"github.com/macrokit/macrokit-go/engine"
)

// TestElementPlusSelect operates Element Plus 2's el-select by its form
// label: the non-filterable select's labelled input is hidden (opacity 0)
// inside a visible wrapper, which is what the engine clicks.
func TestElementPlusSelect(t *testing.T) {
	t.Parallel()
	name := pick{engine.Target{Label: "Name"}, nil}
	cases := []selectCase{
		{widget: "el-select", interaction: "pick an option by its visible name (hidden input, visible wrapper)",
			picks: []pick{{engine.Target{Label: "New department"}, []string{"Legal"}}}, want: map[string]any{"department": "Legal"}},
		{widget: "el-select filterable", interaction: "type to filter and pick",
			picks: []pick{{engine.Target{Label: "Client"}, []string{"Wonka Industries"}}}, want: map[string]any{"client": "Wonka Industries"}},
		{widget: "el-select remote", interaction: "search and pick from async options",
			picks: []pick{{engine.Target{Role: "combobox", Name: "Owner"}, []string{"Barbara Liskov"}}}, want: map[string]any{"owner": "Barbara Liskov"}},
	}
	for _, c := range cases {
		t.Run(c.widget+"/"+c.interaction, func(t *testing.T) {
			t.Parallel()
			c.save = "Save department"
			c.fill = []pick{name}
			runSelect(t, "elementplus", "element-plus", c)
		})
	}
}
