package widgets_test

import (
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestPagesRender proves each library's page built and rendered its
// components: the check targets what the library itself renders, not our
// markup.
func TestPagesRender(t *testing.T) {
	t.Parallel()
	cases := []struct {
		page string
		want engine.Target
	}{
		{"antd", engine.Target{Role: "combobox", Name: "Customer"}},
		{"mui", engine.Target{Role: "button", Name: "Request access"}},
		{"reactselect", engine.Target{Role: "combobox", Name: "Customer"}},
		{"headless", engine.Target{Role: "button", Name: "Add member"}},
		{"shoelace", engine.Target{CSS: "sl-button#add-contact"}},
		{"elementplus", engine.Target{Role: "switch"}},
		{"virtual", engine.Target{Role: "button", Name: "Archive ticket 1"}},
		{"tabs", engine.Target{Role: "button", Name: "Open invoice 1001"}},
	}
	for _, c := range cases {
		t.Run(c.page, func(t *testing.T) {
			t.Parallel()
			p, _ := open(t, c.page)
			do(t, p, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &c.want}}})
		})
	}
}
