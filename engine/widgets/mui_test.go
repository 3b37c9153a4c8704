package widgets_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// muiOpenDialog opens the "Request access" dialog and proves it is open.
func muiOpenDialog(t *testing.T, p *engine.Page) {
	t.Helper()
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Request access"},
		Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &engine.Target{Role: "dialog", Name: "Request access"}}}})
}

// muiSubmit clicks Submit and proves the save: one more granted row, the
// request answered 2xx, the snackbar.
func muiSubmit(t *testing.T, p *engine.Page) *engine.StepResult {
	t.Helper()
	return doEv(t, p, savedClick("Submit", "granted-row", "Access granted"))
}

// TestMUIAccessRequest fills the whole dialog as a user would (TextField,
// Select, async Autocomplete, Checkbox) and proves one save with exactly
// those values.
func TestMUIAccessRequest(t *testing.T) {
	t.Parallel()
	track(t, "Dialog + TextField + Select + Autocomplete (async) + Checkbox + Snackbar", "@mui/material", "fill a dialog form and submit it once")
	p, ss := open(t, "mui")
	muiOpenDialog(t, p)
	doEv(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "System"}, Value: "Billing",
		Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "System"}, Value: "Billing"}}})
	doEv(t, p, engine.Step{Action: vocab.ActSelect, Target: &engine.Target{Label: "Role"}, Options: []string{"Editor"},
		Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Target: &engine.Target{Label: "Role"}, Text: "Editor"}}})
	doEv(t, p, engine.Step{Action: vocab.ActSelect, Target: &engine.Target{Label: "Requested by"}, Options: []string{"Grace Hopper"},
		Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Requested by"}, Value: "Grace Hopper"}}})
	doEv(t, p, engine.Step{Action: vocab.ActCheck, Target: &engine.Target{Label: "Administrator"},
		Expect: []engine.Condition{{Kind: vocab.CondElementState, Target: &engine.Target{Label: "Administrator"}, State: "checked"}}})
	muiSubmit(t, p)

	saves := ss.Effects("/api/save")
	if len(saves) != 1 {
		t.Fatalf("POST /api/save received %d times, want exactly 1", len(saves))
	}
	var got struct {
		Name   string  `json:"name"`
		Role   string  `json:"role"`
		Person string  `json:"person"`
		Admin  bool    `json:"admin"`
		Exp    *string `json:"expires"`
	}
	if err := json.Unmarshal(saves[0].Body, &got); err != nil {
		t.Fatalf("save body %s: %v", saves[0].Body, err)
	}
	if got.Name != "Billing" || got.Role != "Editor" || got.Person != "Grace Hopper" || !got.Admin || got.Exp != nil {
		t.Errorf("save body %s, want name Billing, role Editor, person Grace Hopper, admin true, no expiry", saves[0].Body)
	}
}

// TestMUIDatePickerCalendar picks the expiry date with the picker's
// calendar (open button, then a day) and proves it by the saved value.
func TestMUIDatePickerCalendar(t *testing.T) {
	t.Parallel()
	track(t, "DatePicker", "@mui/x-date-pickers", "pick a date by the calendar")
	p, ss := open(t, "mui")
	muiOpenDialog(t, p)
	doEv(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "System"}, Value: "Payroll"})
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Choose date"},
		Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &engine.Target{Role: "grid"}}}})
	// The calendar opens on the current month (the browser's clock).
	now := time.Now()
	want := fmt.Sprintf("%04d-%02d-15", now.Year(), now.Month())
	// The desktop picker (the engine's browser reports a mouse) closes on
	// the day a user picks.
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "gridcell", Name: "15"},
		Expect: []engine.Condition{{Kind: vocab.CondElementGone, Target: &engine.Target{Role: "grid"}}}})
	muiSubmit(t, p)
	saves := ss.Effects("/api/save")
	if len(saves) != 1 {
		t.Fatalf("POST /api/save received %d times, want exactly 1", len(saves))
	}
	var got struct {
		Exp string `json:"expires"`
	}
	if err := json.Unmarshal(saves[0].Body, &got); err != nil || got.Exp != want {
		t.Errorf("save body %s, want expires %s (err %v)", saves[0].Body, want, err)
	}
}

// TestMUIAutocompleteTypeToSearch types into the async Autocomplete and
// picks from the options the server sends back 150 ms later.
func TestMUIAutocompleteTypeToSearch(t *testing.T) {
	t.Parallel()
	track(t, "Autocomplete (async)", "@mui/material", "type to search, pick from async options")
	p, ss := open(t, "mui")
	muiOpenDialog(t, p)
	grace := &engine.Target{Role: "option", Name: "Grace Hopper"}
	doEv(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "Requested by"}, Value: "hop",
		Expect: []engine.Condition{
			{Kind: vocab.CondElementExists, Target: grace},
			// The server filtered: the other people are not offered.
			{Kind: vocab.CondElementGone, Target: &engine.Target{Role: "option", Name: "Ada Lovelace"}},
		}})
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: grace,
		Expect: []engine.Condition{
			{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Requested by"}, Value: "Grace Hopper"},
			{Kind: vocab.CondElementGone, Target: &engine.Target{Role: "listbox"}},
		}})
	doEv(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "System"}, Value: "Wiki"})
	muiSubmit(t, p)
	saves := ss.Effects("/api/save")
	if len(saves) != 1 {
		t.Fatalf("POST /api/save received %d times, want exactly 1", len(saves))
	}
	var got struct {
		Person string `json:"person"`
	}
	if err := json.Unmarshal(saves[0].Body, &got); err != nil || got.Person != "Grace Hopper" {
		t.Errorf("save body %s, want person Grace Hopper (err %v)", saves[0].Body, err)
	}
}
