package engine

import (
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestDismissOverlayKeepsOwnDialog: a target inside a dialog, covered by a
// popup (in a shadow root) inside that same dialog, is occluded; healing
// must neither press Escape (which closes the dialog) nor click the
// dialog's Close, and the typed note survives. A target behind the dialog
// may still have the dialog dismissed.
func TestDismissOverlayKeepsOwnDialog(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "heal_dialog.html")
	note := &Target{Label: "Note"}
	if _, err := p.Do(ctx, Step{Action: vocab.ActFill, Target: note, Value: "call back Monday"}); err != nil {
		t.Fatal(err)
	}
	res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Save note"}, Timeout: 5 * time.Second})
	if got := actJS(t, ctx, p, `document.getElementById('dlg').hidden + ' ' + document.getElementById('note').value + ' ' + document.getElementById('status').textContent`); got != "false call back Monday idle" {
		t.Fatalf("dialog hidden, note, status = %q: healing closed the user's dialog or clicked", got)
	}
	// The step ends occluded, or out of time while still waiting for the
	// popup to go away: either way it must not have been "healed" away.
	if !IsCode(err, CodeOccluded) && !IsCode(err, CodeTimeout) {
		t.Fatalf("err = %v, want occluded by the popup", err)
	}
	var dismissed bool
	for _, a := range res.Attempts {
		dismissed = dismissed || a.Strategy == "dismiss_overlay"
	}
	if !dismissed {
		t.Fatalf("no dismiss_overlay attempt: %+v", res.Attempts)
	}

	// Behind the modal dialog: dismissing it is what a user would do.
	if _, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &Target{Role: "button", Name: "Refresh"},
		Expect: []Condition{{Kind: vocab.CondTextPresent, Text: "refreshed"}}}); err != nil {
		t.Fatalf("click behind the dialog: %v", err)
	}
}
