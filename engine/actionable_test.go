package engine

import (
	"testing"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestActionableSlottedText: the click point of a web component's inner
// button lands on light-DOM text its host slots into it, which hit-tests
// to the host. Host, shadow tree and slotted content are one element: the
// button receives the pointer, the click lands once, nothing is occluded.
func TestActionableSlottedText(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "ground_widgets.html")
	el, err := p.Resolve(ctx, Target{Role: "button", Name: "Add contact"})
	if err != nil {
		t.Fatal(err)
	}
	if el.Selector != "#add >>> button" {
		t.Fatalf("resolved %s, want the shadow button", el.Selector)
	}
	// The fixture must reproduce the false hit: at the click point the
	// document's own hit test answers the host.
	x, y := el.Box.Center()
	if !groundEvalBool(t, ctx, p, `const at = mk.elementAt(args[0], args[1]); return at && at.id === 'add';`, x, y) {
		t.Fatal("the click point does not hit-test to the host: the fixture no longer shows the case")
	}
	rep, err := p.Actionable(ctx, el, vocab.ActClick)
	if err != nil {
		t.Fatalf("actionable: %v (%+v)", err, rep)
	}
	if !rep.ReceivesPointer || rep.Hit == nil || rep.Hit.Tag != "x-button" {
		t.Fatalf("report %+v, want receives_pointer with the host as hit", rep)
	}
	res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Add contact"}, Retry: NoRetry,
		Expect: []Condition{{Kind: vocab.CondElementExists, Target: &Target{Role: "dialog", Name: "Add contact"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var clicks int
	if err := p.groundEvalJSON(ctx, &clicks, `() => window.clicks`); err != nil {
		t.Fatal(err)
	}
	if clicks != 1 || len(res.Attempts) != 1 {
		t.Fatalf("%d clicks in %d attempts, want 1 in 1", clicks, len(res.Attempts))
	}
}
