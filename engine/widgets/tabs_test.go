package widgets_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestTabsInvoicePopup opens the invoice in a new tab the two ways the page
// offers (window.open, a target=_blank link), then checks and acts in the
// new tab through StepResult.Popup: one payment, sent from the new tab.
func TestTabsInvoicePopup(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, interaction string
		opener            engine.Target
	}{
		{"window.open", "a button's window.open: check and act in the new tab",
			engine.Target{Role: "button", Name: "Open invoice 1001"}},
		{"target=_blank", "a target=_blank link: check and act in the new tab",
			engine.Target{Role: "link", Name: "Invoice 1001 in a new tab"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			track(t, "new tab ("+c.name+")", "plain DOM", c.interaction)
			p, ss := open(t, "tabs")
			res := doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &c.opener})
			tab := res.Popup
			if tab == nil {
				t.Fatalf("StepResult.Popup is nil after the click; act: %+v", res.Act)
			}
			if pops := p.Popups(); len(pops) != 1 || pops[0] != tab {
				t.Errorf("the opener lists %d popups, want exactly the step's one", len(pops))
			}
			if u, err := tab.URL(context.Background()); err != nil || !strings.Contains(u, "view=invoice") {
				t.Errorf("new tab is at %q (err %v), want the invoice view", u, err)
			}
			doEv(t, tab, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{
				{Kind: vocab.CondTextPresent, Text: "Total due"},
				{Kind: vocab.CondTitleMatches, Pattern: "^Invoice 1001$"},
			}})
			doEv(t, tab, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Mark as paid"},
				Expect: []engine.Condition{
					{Kind: vocab.CondTextPresent, Target: &engine.Target{Role: "status"}, Text: "Invoice 1001 paid"},
					{Kind: vocab.CondRequestSucceeded, URL: "/api/save", Method: "POST"},
				}})
			// The opener is untouched: its checks still see the list.
			doEv(t, p, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{
				{Kind: vocab.CondTextAbsent, Text: "Total due"},
				{Kind: vocab.CondTextPresent, Text: "No bank connected"},
			}})
			saves := ss.Effects("/api/save")
			if len(saves) != 1 || saves[0].Form != "tabs-pay" {
				t.Fatalf("saves %+v, want exactly one from the invoice tab (form tabs-pay)", saves)
			}
			var got struct {
				Invoice int  `json:"invoice"`
				Paid    bool `json:"paid"`
			}
			if err := json.Unmarshal(saves[0].Body, &got); err != nil || got.Invoice != 1001 || !got.Paid {
				t.Errorf("save body %s, want invoice 1001 paid (err %v)", saves[0].Body, err)
			}
		})
	}
}

// TestTabsOAuthPopup connects the bank through an OAuth-style popup that
// posts its result to the opener and closes itself.
func TestTabsOAuthPopup(t *testing.T) {
	t.Parallel()
	track(t, "popup (OAuth-style, closes itself)", "plain DOM", "authorize in a popup, the opener shows the result")
	p, ss := open(t, "tabs")
	res := doEv(t, p, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Connect bank"}})
	pop := res.Popup
	if pop == nil {
		t.Fatalf("StepResult.Popup is nil after the click; act: %+v", res.Act)
	}
	if pops := p.Popups(); len(pops) != 1 || pops[0] != pop {
		t.Errorf("the opener lists %d popups, want exactly the step's one", len(pops))
	}
	doEv(t, pop, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "Connect your bank"}}})
	doEv(t, pop, engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Allow"},
		Expect: []engine.Condition{{Kind: vocab.CondRequestSucceeded, URL: "/api/save", Method: "POST"}}})
	doEv(t, p, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{
		{Kind: vocab.CondTextPresent, Target: &engine.Target{Role: "status"}, Text: "Connected: Demo Bank"},
	}})
	// The popup closed itself: a step in it now fails (and says why).
	_, err := pop.Do(context.Background(), engine.Step{Action: vocab.ActWait, Timeout: 2 * time.Second,
		Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "Connect your bank"}}})
	t.Logf("a step in the closed popup: %v", err)
	if !engine.IsCode(err, engine.CodePageClosed) {
		t.Errorf("a step in the popup that closed itself: %v, want page_closed", err)
	}
	saves := ss.Effects("/api/save")
	if len(saves) != 1 || saves[0].Form != "tabs-auth" {
		t.Fatalf("saves %+v, want exactly one from the popup (form tabs-auth)", saves)
	}
}
