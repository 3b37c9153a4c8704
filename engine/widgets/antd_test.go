package widgets_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// antdSaveCustomer picks customer the way a user does with the mouse (open
// the Select, click the option's visible text; antd's Select by role or
// label is another test's subject), saves, and proves one new row. The
// customer must not be a neighbour of the active option: antd's 0x0 ARIA
// listbox renders those as role=option twins of the visible text, and
// while the dropdown fades in neither is visible, so {text} is ambiguous.
func antdSaveCustomer(t *testing.T, p *engine.Page, customer string) {
	t.Helper()
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Label: "Customer"},
		Expect: []engine.Condition{{Kind: vocab.CondElementState, Target: &engine.Target{Label: "Customer"}, State: "expanded"}}})
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Text: customer},
		Expect: []engine.Condition{{Kind: vocab.CondElementState, Target: &engine.Target{Label: "Customer"}, State: "collapsed"}}})
	doEv(t, p, savedClick("Save customer", "saved-row", "Customer saved"))
}

// TestAntdPopconfirmDelete saves a customer, then deletes its row through
// the Popconfirm: one delete request, the row gone.
func TestAntdPopconfirmDelete(t *testing.T) {
	t.Parallel()
	track(t, "Popconfirm", "antd", "confirm a row's delete once")
	p, ss := open(t, "antd")
	antdSaveCustomer(t, p, "Hooli")
	wantCount(t, ss, "/api/save", 1)
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Delete Hooli"},
		Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "Delete this customer?"}}})
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Yes"},
		Expect: []engine.Condition{
			{Kind: vocab.CondListCountDelta, Target: &engine.Target{TestID: "saved-row"}, Delta: -1},
			{Kind: vocab.CondRequestSucceeded, URL: "/api/delete", Method: "POST"},
			{Kind: vocab.CondElementGone, Target: &engine.Target{Role: "button", Name: "Delete Hooli"}},
		}})
	deletes := ss.Effects("/api/delete")
	if len(deletes) != 1 {
		t.Fatalf("POST /api/delete received %d times, want exactly 1", len(deletes))
	}
	if string(deletes[0].Body) != `{"id":1}` {
		t.Errorf("delete body %s, want the saved row's id 1", deletes[0].Body)
	}
}

// TestAntdDatePicker sets "Start date" by typing and by the calendar, and
// proves each by the field's value and the saved body.
func TestAntdDatePicker(t *testing.T) {
	t.Parallel()
	now := time.Now()
	cases := []struct {
		name, interaction, want string
		steps                   func(*testing.T, *engine.Page, string)
	}{
		{name: "typing", interaction: "type a date", want: "2024-03-14",
			steps: func(t *testing.T, p *engine.Page, want string) {
				doEv(t, p, engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "Start date"}, Value: want})
				doEv(t, p, engine.Step{Action: vocab.ActPress, Target: &engine.Target{Label: "Start date"}, Key: "Enter",
					Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Start date"}, Value: want}}})
			}},
		// The calendar opens on the current month (the browser's clock).
		{name: "calendar", interaction: "pick a date by the calendar", want: fmt.Sprintf("%04d-%02d-15", now.Year(), now.Month()),
			steps: func(t *testing.T, p *engine.Page, want string) {
				doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Label: "Start date"},
					Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "Today"}}})
				doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Text: "15"},
					Expect: []engine.Condition{{Kind: vocab.CondValueEquals, Target: &engine.Target{Label: "Start date"}, Value: want}}})
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			track(t, "DatePicker", "antd", c.interaction)
			p, ss := open(t, "antd")
			c.steps(t, p, c.want)
			antdSaveCustomer(t, p, "Initech")
			saves := ss.Effects("/api/save")
			if len(saves) != 1 {
				t.Fatalf("POST /api/save received %d times, want exactly 1", len(saves))
			}
			var got struct {
				Start string `json:"start"`
			}
			if err := json.Unmarshal(saves[0].Body, &got); err != nil || got.Start != c.want {
				t.Errorf("save body %s, want start %s (err %v)", saves[0].Body, c.want, err)
			}
		})
	}
}

// TestAntdModal opens the "Add note" Modal and closes it with "Keep".
// antd keeps a closed Modal in the DOM (display: none), so "closed" is the
// dialog's visibility.
func TestAntdModal(t *testing.T) {
	t.Parallel()
	track(t, "Modal", "antd", "open a modal and close it with its OK button")
	p, ss := open(t, "antd")
	antdModalOpenKeep(t, p, engine.Condition{Kind: vocab.CondElementState, Target: antdNote, State: "hidden"})
	if n := len(ss.Effects("")); n != 0 {
		t.Errorf("the modal sent %d requests to the API, want none", n)
	}
}

// TestAntdModalGone is the check a user writes for "the modal closed":
// element_gone. antd keeps the closed Modal in the DOM (display: none), so
// this holds only because element_gone counts shown matches.
func TestAntdModalGone(t *testing.T) {
	t.Parallel()
	track(t, "Modal", "antd", "element_gone after closing a modal")
	p, _ := open(t, "antd")
	antdModalOpenKeep(t, p, engine.Condition{Kind: vocab.CondElementGone, Target: antdNote})
}

var antdNote = &engine.Target{Role: "dialog", Name: "Add note"}

func antdModalOpenKeep(t *testing.T, p *engine.Page, closed engine.Condition) {
	t.Helper()
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Add note"},
		Expect: []engine.Condition{{Kind: vocab.CondElementState, Target: antdNote, State: "visible"}}})
	doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Keep"},
		Expect: []engine.Condition{closed}})
}
