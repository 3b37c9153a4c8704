package widgets_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// epSave clicks "Save department" and proves the save: one more row, the
// request answered 2xx, the ElMessage.
func epSave(t *testing.T, p *engine.Page) {
	t.Helper()
	doEv(t, p, savedClick("Save department", "department-row", "Department saved"))
}

// TestElementPlusFormRules saves an empty form (refused by the form's rule,
// nothing sent), then fills Name and types the date, and saves once.
func TestElementPlusFormRules(t *testing.T) {
	t.Parallel()
	track(t, "Form rules + DatePicker + ElMessage", "element-plus", "a refused save sends nothing; type a date; save once")
	p, ss := open(t, "elementplus")
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Save department"},
		Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "Name is required"}}})
	// The rule's message is shown only after validate() refused the form,
	// so no save can still be on its way.
	wantCount(t, ss, "/api/save", 0)

	doEv(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "Name"}, Value: "Research",
		Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Name"}, Value: "Research"}}})
	doEv(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "Founded"}, Value: "2024-03-14",
		Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Founded"}, Value: "2024-03-14"}}})
	// Enter commits the typed date (the saved body proves it took).
	doEv(t, p, engine.Step{Action: vocab.ActPress, Key: "Enter", Target: &engine.Target{Label: "Founded"},
		Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Founded"}, Value: "2024-03-14"}}})
	epSave(t, p)
	doEv(t, p, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{{Kind: vocab.CondTextAbsent, Text: "Name is required"}}})
	saves := ss.Effects("/api/save")
	if len(saves) != 1 {
		t.Fatalf("POST /api/save received %d times, want exactly 1", len(saves))
	}
	var got struct {
		Name    string `json:"name"`
		Founded string `json:"founded"`
	}
	if err := json.Unmarshal(saves[0].Body, &got); err != nil || got.Name != "Research" || got.Founded != "2024-03-14" {
		t.Errorf("save body %s, want name Research, founded 2024-03-14 (err %v)", saves[0].Body, err)
	}
}

// TestElementPlusDatePickerCalendar picks the date from the picker's
// calendar and proves it by the field and the saved value.
func TestElementPlusDatePickerCalendar(t *testing.T) {
	t.Parallel()
	track(t, "DatePicker", "element-plus", "pick a date by the calendar")
	p, ss := open(t, "elementplus")
	doEv(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "Name"}, Value: "Legal"})
	grid := &engine.Target{Role: "grid"}
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Label: "Founded"},
		Expect: []engine.Condition{{Kind: vocab.CondElementState, Target: grid, State: "visible"}}})
	// The calendar opens on the current month (the browser's clock).
	now := time.Now()
	want := fmt.Sprintf("%04d-%02d-15", now.Year(), now.Month())
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "gridcell", Name: "15"},
		Expect: []engine.Condition{
			{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Founded"}, Value: want},
			{Kind: vocab.CondElementState, Target: grid, State: "hidden"},
		}})
	epSave(t, p)
	saves := ss.Effects("/api/save")
	if len(saves) != 1 {
		t.Fatalf("POST /api/save received %d times, want exactly 1", len(saves))
	}
	var got struct {
		Founded string `json:"founded"`
	}
	if err := json.Unmarshal(saves[0].Body, &got); err != nil || got.Founded != want {
		t.Errorf("save body %s, want founded %s (err %v)", saves[0].Body, want, err)
	}
}
