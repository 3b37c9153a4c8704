package widgets_test

import (
	"context"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestAntdIconButtonName: antd names an icon button by the icon's label and
// its text ("upload Upload invoice"); the words a user reads find it, a
// word two buttons share is ambiguous, and a name it does not contain as
// whole words is not found.
func TestAntdIconButtonName(t *testing.T) {
	t.Parallel()
	track(t, "Button with icon", "antd", "role+name by the visible words (icon label prefixed)")
	p, ss := open(t, "antd")
	ctx := context.Background()
	up := &engine.Target{Role: "button", Name: "Upload invoice"}
	res := do(t, p, engine.Step{Action: vocab.ActHover, Target: up, Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: up}}})
	if res.Element == nil || res.Element.How != "words" || res.Element.Name != "upload Upload invoice" {
		t.Fatalf("grounded %+v, want antd's button named %q by words", res.Element, "upload Upload invoice")
	}
	cases := []struct {
		name string
		code engine.Code // "" = resolves
		how  string
	}{
		{"upload invoice", "", "words"},                 // case does not matter
		{"Save customer", "", "unique"},                 // exact stays exact
		{"Save", engine.CodeAmbiguous, ""},              // "Save customer" and "Save draft"
		{"Upload invoices", engine.CodeNotFound, ""},    // whole words only
		{"/^Upload invoice$/", engine.CodeNotFound, ""}, // a regex never falls back
	}
	for _, c := range cases {
		el, err := p.Resolve(ctx, engine.Target{Role: "button", Name: c.name})
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%q: %v", c.name, err)
		case c.code == "" && el.How != c.how:
			t.Errorf("%q: how %q, want %q", c.name, el.How, c.how)
		case c.code != "" && !engine.IsCode(err, c.code):
			t.Errorf("%q: err %v, want %s", c.name, err, c.code)
		}
		if c.code == engine.CodeAmbiguous {
			var ee *engine.Error
			if asError(err, &ee) && len(ee.Candidates) < 2 {
				t.Errorf("%q: ambiguity lists %d candidates, want both buttons", c.name, len(ee.Candidates))
			}
		}
	}
	if n := ss.Count(""); n != 0 {
		t.Fatalf("%d side effects, want 0", n)
	}
}
