package widgets_test

import (
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestLyingToast proves, on every library's page, that a success message
// over a refused request fails the step: the button posts to /api/fail
// (500) and shows its toast anyway. The toast check alone passes — in the
// failing step's own results and as a step of its own — so it is
// request_succeeded that catches the lie, and the action is sent once.
func TestLyingToast(t *testing.T) {
	t.Parallel()
	cases := []struct {
		page, library, widget string
		open                  *engine.Step // a step that reveals the button (a menu), if any
		button                engine.Target
		toast                 string
	}{
		{page: "antd", library: "antd", widget: "Button + message",
			button: engine.Target{Role: "button", Name: "Save draft"}, toast: "Draft saved"},
		{page: "mui", library: "@mui/material", widget: "Button + Snackbar",
			button: engine.Target{Role: "button", Name: "Renew all"}, toast: "Access renewed"},
		{page: "reactselect", library: "react-select", widget: "page button + status",
			button: engine.Target{Role: "button", Name: "Quick order"}, toast: "Quick order placed"},
		{page: "headless", library: "@headlessui/react", widget: "Menu item + status",
			open: &engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Actions"},
				Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &engine.Target{Role: "menuitem", Name: "Archive"}}}},
			button: engine.Target{Role: "menuitem", Name: "Archive"}, toast: "Archived"},
		{page: "shoelace", library: "@shoelace-style/shoelace", widget: "sl-button + status",
			button: engine.Target{Role: "button", Name: "Sync contacts"}, toast: "Contacts synced"},
		{page: "elementplus", library: "element-plus", widget: "el-button + ElMessage",
			button: engine.Target{Role: "button", Name: "Sync"}, toast: "Synced"},
	}
	for _, c := range cases {
		t.Run(c.page, func(t *testing.T) {
			t.Parallel()
			track(t, c.widget, c.library, "a lying toast (success shown over a 500) fails the step")
			p, ss := open(t, c.page)
			if c.open != nil {
				doEv(t, p, *c.open)
			}
			res, ee := fails(t, p, engine.Step{Action: vocab.ActClick, Target: &c.button, Expect: []engine.Condition{
				{Kind: vocab.CondTextPresent, Text: c.toast},
				{Kind: vocab.CondRequestSucceeded, URL: "/api/fail", Method: "POST"},
			}})
			if ee.Code != engine.CodeCheckFailed {
				t.Fatalf("code %s, want %s: %v", ee.Code, engine.CodeCheckFailed, ee)
			}
			toast := checkOf(t, res.Checks, vocab.CondTextPresent)
			if toast.Status != engine.Passed {
				t.Errorf("text_present %q is %s, want passed (the page does show the lie): %s", c.toast, toast.Status, dumpChecks(res.Checks))
			}
			req := checkOf(t, res.Checks, vocab.CondRequestSucceeded)
			if req.Status != engine.Failed || evAt(req, "request.status") != "500" || evAt(req, "request.method") != "POST" {
				t.Errorf("request_succeeded is %s with evidence status %q method %q, want failed on POST -> 500: %s",
					req.Status, evAt(req, "request.status"), evAt(req, "request.method"), dumpChecks(res.Checks))
			}
			if len(ee.Checks) != len(res.Checks) {
				t.Errorf("the error carries %d checks, the result %d", len(ee.Checks), len(res.Checks))
			}
			// The naive macro: the toast alone, checked as a step of its own,
			// passes over the same refused request.
			naive := doEv(t, p, engine.Step{Action: vocab.ActWait, Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: c.toast}}})
			if naive.Status != engine.Passed {
				t.Errorf("the toast-only step is %s, want passed", naive.Status)
			}
			wantCount(t, ss, "/api/fail", 1)
		})
	}
}
