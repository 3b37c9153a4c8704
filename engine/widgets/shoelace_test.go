package widgets_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Shoelace 2 renders every control in a shadow root and slots the page's
// text into it: these tests drive it with the role and label targets a user
// reads off the screen and count what the server received.

var (
	slDialog = &engine.Target{Role: "dialog", Name: "Add contact"}
	slRows   = &engine.Target{TestID: "contact-row"}
)

// slOpenDialog clicks "Add contact" (an sl-button: the click point is on
// slotted text that hit-tests to the host) and waits for the dialog.
func slOpenDialog(t *testing.T, p *engine.Page) {
	t.Helper()
	res := do(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Add contact"},
		Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: slDialog}}})
	if n := len(res.Attempts); n != 1 {
		t.Fatalf("opening the dialog took %d attempts (%+v), want 1", n, res.Attempts)
	}
}

// TestShoelaceDialogExists: sl-dialog stays in the DOM while closed, so
// element_exists must fail before the click and pass after it.
func TestShoelaceDialogExists(t *testing.T) {
	t.Parallel()
	track(t, "sl-dialog", "@shoelace-style/shoelace", "element_exists fails while closed (in the DOM), passes once opened")
	p, ss := open(t, "shoelace")
	ctx := context.Background()
	do(t, p, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &engine.Target{Role: "button", Name: "Add contact"}}}})
	n, err := p.Count(ctx, *slDialog)
	if err != nil || n != 1 {
		t.Fatalf("closed dialog: %d in the DOM (%v), want 1 (the test needs it present while closed)", n, err)
	}
	before := p.Verify(ctx, []engine.Condition{
		{Kind: vocab.CondElementExists, Target: slDialog, Timeout: 300 * time.Millisecond},
		{Kind: vocab.CondElementGone, Target: slDialog, Timeout: 300 * time.Millisecond},
		{Kind: vocab.CondElementState, Target: slDialog, State: "hidden", Timeout: 300 * time.Millisecond},
	}, nil)
	if before[0].Status != engine.Failed || before[1].Status != engine.Passed || before[2].Status != engine.Passed {
		t.Fatalf("before the click: exists=%s gone=%s hidden=%s, want failed/passed/passed (%+v)", before[0].Status, before[1].Status, before[2].Status, before)
	}
	slOpenDialog(t, p)
	after := p.Verify(ctx, []engine.Condition{
		{Kind: vocab.CondElementGone, Target: slDialog, Timeout: 300 * time.Millisecond},
		{Kind: vocab.CondElementState, Target: slDialog, State: "visible"},
	}, nil)
	if after[0].Status != engine.Failed || after[1].Status != engine.Passed {
		t.Fatalf("after the click: gone=%s visible=%s, want failed/passed", after[0].Status, after[1].Status)
	}
	if n := ss.Count(""); n != 0 {
		t.Fatalf("opening a dialog caused %d side effects, want 0", n)
	}
}

// TestShoelaceContactSave fills the dialog's shadow-DOM controls by their
// labels, picks a slotted option, checks a checkbox and saves: exactly one
// POST with the values, one new row, the dialog closed.
func TestShoelaceContactSave(t *testing.T) {
	t.Parallel()
	track(t, "sl-input, sl-select, sl-checkbox, sl-button", "@shoelace-style/shoelace", "fill by shadow-root labels, select a slotted option, check, save: one POST")
	p, ss := open(t, "shoelace")
	slOpenDialog(t, p)
	do(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "Full name"}, Value: "Ada Lovelace"})
	do(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "Email"}, Value: "ada@example.com"})
	sel := do(t, p, engine.Step{Action: vocab.ActSelect, Target: &engine.Target{Label: "Department"}, Options: []string{"Legal"},
		Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Department"}, Value: "Legal"}}})
	if sel.Element == nil || sel.Element.Role != "combobox" {
		t.Fatalf("{label: Department} grounded %+v, want the combobox (not its listbox)", sel.Element)
	}
	do(t, p, engine.Step{Action: vocab.ActCheck, Target: &engine.Target{Role: "checkbox", Name: "VIP customer"}})
	res := do(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Save contact"}, Expect: []engine.Condition{
		{Kind: vocab.CondRequestSucceeded, URL: "/api/save", Method: "POST"},
		{Kind: vocab.CondListCountDelta, Target: slRows, Delta: 1},
		{Kind: vocab.CondElementGone, Target: slDialog},
	}})
	if n := len(res.Attempts); n != 1 {
		t.Errorf("save took %d attempts, want 1: %+v", n, res.Attempts)
	}
	saves := ss.Effects("/api/save")
	if len(saves) != 1 {
		t.Fatalf("POST /api/save received %d times, want exactly 1", len(saves))
	}
	var body struct {
		Name, Email, Department string
		VIP                     bool
	}
	if err := json.Unmarshal(saves[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Name != "Ada Lovelace" || body.Email != "ada@example.com" || body.Department != "legal" || !body.VIP {
		t.Fatalf("saved %s, want Ada Lovelace / ada@example.com / legal / vip", saves[0].Body)
	}
	if n := ss.Count(""); n != 1 {
		t.Fatalf("%d side effects in all, want 1 (%+v)", n, ss.Effects(""))
	}
}

// TestShoelaceSwitch toggles sl-switch by its slotted name: one toggle
// request, on.
func TestShoelaceSwitch(t *testing.T) {
	t.Parallel()
	track(t, "sl-switch", "@shoelace-style/shoelace", "toggle on by its slotted name: one request")
	p, ss := open(t, "shoelace")
	sw := &engine.Target{Role: "switch", Name: "Newsletter"}
	res := do(t, p, engine.Step{Action: vocab.ActCheck, Target: sw, Expect: []engine.Condition{
		{Kind: vocab.CondRequestSucceeded, URL: "/api/toggle", Method: "POST"},
		{Kind: vocab.CondElementState, Target: sw, State: "checked"},
	}})
	if n := len(res.Attempts); n != 1 {
		t.Errorf("toggle took %d attempts, want 1: %+v", n, res.Attempts)
	}
	toggles := ss.Effects("/api/toggle")
	if len(toggles) != 1 {
		t.Fatalf("POST /api/toggle received %d times, want exactly 1", len(toggles))
	}
	var body struct {
		Name string
		On   bool
	}
	if err := json.Unmarshal(toggles[0].Body, &body); err != nil || body.Name != "newsletter" || !body.On {
		t.Fatalf("toggle body %s (%v), want newsletter on", toggles[0].Body, err)
	}
}

// TestShoelaceLyingToast: "Sync contacts" says it synced while the server
// answered 500; the step must fail on request_succeeded, once.
func TestShoelaceLyingToast(t *testing.T) {
	t.Parallel()
	track(t, "sl-button (lying toast)", "@shoelace-style/shoelace", "fake success fails with request evidence")
	p, ss := open(t, "shoelace")
	_, err := p.Do(context.Background(), engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Sync contacts"}, Expect: []engine.Condition{
		{Kind: vocab.CondTextPresent, Text: "Contacts synced"},
		{Kind: vocab.CondRequestSucceeded, URL: "/api/fail", Method: "POST"},
	}})
	var ee *engine.Error
	if !engine.IsCode(err, engine.CodeCheckFailed) || !asError(err, &ee) {
		t.Fatalf("err = %v, want check_failed", err)
	}
	var text, req *engine.CheckResult
	for i := range ee.Checks {
		switch ee.Checks[i].Kind {
		case vocab.CondTextPresent:
			text = &ee.Checks[i]
		case vocab.CondRequestSucceeded:
			req = &ee.Checks[i]
		}
	}
	if text == nil || text.Status != engine.Passed {
		t.Fatalf("the toast check should pass (the page does say it): %+v", text)
	}
	if req == nil || req.Status != engine.Failed || req.Evidence == nil {
		t.Fatalf("request_succeeded should fail with evidence: %+v", req)
	}
	if n := ss.Count("/api/fail"); n != 1 {
		t.Fatalf("POST /api/fail received %d times, want exactly 1 (a failed check must not repeat the action)", n)
	}
}

// TestShoelaceDialogSurvivesHealing: with the department list open over
// the Email field, clicking into Email is occluded by the list inside the
// user's own dialog. Healing must neither press Escape nor click a close
// control there: the dialog and the typed name survive.
func TestShoelaceDialogSurvivesHealing(t *testing.T) {
	t.Parallel()
	track(t, "sl-dialog", "@shoelace-style/shoelace", "healing an occluded step inside the dialog keeps it open with its input")
	p, ss := open(t, "shoelace")
	ctx := context.Background()
	slOpenDialog(t, p)
	name := &engine.Target{Label: "Full name"}
	do(t, p, engine.Step{Action: vocab.ActFill, Target: name, Value: "Grace Hopper"})
	dept := &engine.Target{Role: "combobox", Name: "Department"}
	do(t, p, engine.Step{Action: vocab.ActClick, Target: dept, Expect: []engine.Condition{{Kind: vocab.CondElementState, Target: dept, State: "expanded"}}})
	// The list opens upwards, over the Email field.
	res, err := p.Do(ctx, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Label: "Email"}, Timeout: 5 * time.Second})
	if err == nil {
		t.Fatalf("clicking under the open list passed; the test needs it occluded (attempts %+v)", res.Attempts)
	}
	// The step ends occluded, or out of time while still waiting for the
	// list to go away: either way it must not have been "healed" away.
	if !engine.IsCode(err, engine.CodeOccluded) && !engine.IsCode(err, engine.CodeTimeout) {
		t.Fatalf("err = %v, want occluded (by the open listbox)", err)
	}
	healed := false
	for _, a := range res.Attempts {
		healed = healed || a.Strategy == "dismiss_overlay"
	}
	if !healed {
		t.Fatalf("no dismiss_overlay attempt: %+v", res.Attempts)
	}
	got := p.Verify(ctx, []engine.Condition{
		{Kind: vocab.CondElementState, Target: slDialog, State: "visible", Timeout: time.Second},
		{Kind: vocab.CondValueEquals, Target: name, Value: "Grace Hopper", Timeout: time.Second},
	}, nil)
	if !engine.AllPassed(got) {
		t.Fatalf("healing closed the user's dialog or lost its input: %+v", got)
	}
	if n := ss.Count(""); n != 0 {
		t.Fatalf("%d side effects, want 0", n)
	}
}

func asError(err error, out **engine.Error) bool {
	e, ok := err.(*engine.Error)
	if ok {
		*out = e
	}
	return ok
}
