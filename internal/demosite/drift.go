package demosite

import (
	"bytes"
	"fmt"
)

// Drift modes (Options.Drift): the site as a later release renders it, for
// testing how macros written against the seeded site survive a redesign
// (docs/heal.md).
const (
	// DriftNone is the site as the reference macros were written for it.
	DriftNone = ""
	// DriftRelabel renames labels and buttons and moves the New customer
	// button to another container, keeping ids and test ids: "New
	// customer" -> "Create customer" (into the list's toolbar), the
	// dialog's "Name" -> "Full name", "Email" -> "E-mail address", "Save"
	// -> "Add", "Search customers" -> "Find a customer"; on /settings
	// "Weekly report" -> "Weekly summary" and "Save settings" -> "Apply
	// settings". What each control does is unchanged. The dialog's title
	// stays "New customer".
	DriftRelabel = "relabel"
	// DriftDecoy puts an "Import customers" button where New customer was,
	// with its id and test id, that only shows the toast "Import is not
	// available yet": a look-alike that does something else.
	DriftDecoy = "decoy"
)

// DriftModes lists the modes Options.Drift accepts.
var DriftModes = []string{DriftRelabel, DriftDecoy}

// checkDrift reports an unknown drift mode.
func checkDrift(mode string) error {
	switch mode {
	case DriftNone, DriftRelabel, DriftDecoy:
		return nil
	}
	return fmt.Errorf("demosite: unknown drift mode %q (want %s or %s)", mode, DriftRelabel, DriftDecoy)
}

// newCustomerButton is the New customer button as customers.html has it.
const newCustomerButton = `<button type="button" class="btn primary" id="new-customer" data-action data-late data-testid="new-customer"><svg viewBox="0 0 16 16" aria-hidden="true" focusable="false"><path d="M8 3v10M3 8h10" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>New customer</button>`

// driftEdits are each mode's replacements per page file, applied in order;
// each must match exactly once (TestDriftEditsApply).
var driftEdits = map[string]map[string][][2]string{
	DriftRelabel: {
		"static/customers.html": {
			{"\n    " + newCustomerButton, ""},
			{`<div class="spacer"></div>`, `<div class="spacer"></div>` + "\n      " + bytesReplace(newCustomerButton, "</svg>New customer<", "</svg>Create customer<")},
			{`<label for="customer-name">Name</label>`, `<label for="customer-name">Full name</label>`},
			{`<label for="customer-email">Email</label>`, `<label for="customer-email">E-mail address</label>`},
			{`data-testid="save-customer">Save</button>`, `data-testid="save-customer">Add</button>`},
			{`<label for="customer-search">Search customers</label>`, `<label for="customer-search">Find a customer</label>`},
		},
		"static/settings.html": {
			{`<label for="weekly-report">Weekly report</label>`, `<label for="weekly-report">Weekly summary</label>`},
			{`data-testid="save-settings">Save settings</button>`, `data-testid="save-settings">Apply settings</button>`},
		},
	},
	DriftDecoy: {
		"static/customers.html": {
			{newCustomerButton, bytesReplace(bytesReplace(newCustomerButton, "</svg>New customer<", "</svg>Import customers<"), "data-action", "data-action data-decoy")},
		},
	},
}

func bytesReplace(s, old, nw string) string {
	return string(bytes.Replace([]byte(s), []byte(old), []byte(nw), 1))
}

// drift applies the mode's edits to a page file's body.
func drift(mode, file string, body []byte) []byte {
	for _, e := range driftEdits[mode][file] {
		body = bytes.Replace(body, []byte(e[0]), []byte(e[1]), 1)
	}
	return body
}
