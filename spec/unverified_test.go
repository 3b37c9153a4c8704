package spec

import (
	"strings"
	"testing"
)

// TestUncheckedEffects: which act macros check accepts and which it
// rejects for an effect no post-condition checks (the rejected forms, with
// their positions, are in golden/invalid_unchecked_effects).
func TestUncheckedEffects(t *testing.T) {
	head := func(risk string) string {
		return "macrokit: 1\nname: m\nversion: 1.0.0\nintent: x\nrisk: " + risk + "\n"
	}
	callee := File{Path: "macros.d/open_menu.yaml", Data: []byte("macrokit: 1\nname: open_menu\nversion: 1.0.0\nintent: open the menu\nrisk: read\nsteps:\n  - click: {role: button, name: Menu}\n")}
	cases := []struct {
		name string
		risk string
		body string
		want string // "" accepted, else a substring of one of its diagnostics
	}{
		{"a click with expect", "act", "steps:\n  - click: {role: button, name: Save}\n    expect: [{text_present: Saved}]\n", ""},
		{"fill, select and check read back", "act", "steps:\n  - fill: {target: {label: Name}, value: x}\n  - select: {target: {label: Tier}, option: pro}\n  - check: {label: Agree}\n", ""},
		{"a wait after the click", "act", "steps:\n  - click: {role: button, name: Save}\n  - wait: {text_present: Saved}\n", ""},
		{"navigation and extraction", "act", "steps:\n  - goto: https://example.com\n  - extract: {target: {testid: x}, into: v}\n", ""},
		{"a click that opens a tab", "act", "steps:\n  - click: {target: {role: link, name: Invoice}, opens: invoice}\n", ""},
		{"a POST and an assert on its answer", "act", "steps:\n  - http: {method: POST, url: https://example.com/x, extract: {id: {path: $.id, type: string}}}\n  - assert: {that: \"{{ id }}\", empty: false}\n", ""},
		{"a GET changes nothing", "act", "steps:\n  - http: {url: https://example.com/x}\n", ""},
		{"an unchecked click in a read macro", "read", "steps:\n  - click: {role: button, name: More}\n", ""},
		{"a reason on the step", "act", "steps:\n  - click: {role: button, name: Save}\n    unverified: the site shows no confirmation at all\n", ""},
		{"a reason on the macro", "dangerous", "unverified: the site shows no confirmation at all\nsteps:\n  - click: {role: button, name: Save}\n", ""},
		{"a callee's last effect checked by the caller", "act", "steps:\n  - call: {macro: open_menu}\n  - wait: {element_exists: {role: menu}}\n", ""},
		{"an unchecked click", "act", "steps:\n  - click: {role: heading, name: Customers}\n", "steps[0]: this click changes the page"},
		{"an unchecked click, dangerous", "dangerous", "steps:\n  - press: Enter\n", "steps[0]: this press changes the page"},
		{"a POST's 2xx is not a check", "act", "steps:\n  - http: {method: POST, url: https://example.com/x}\n", "steps[0]: this POST request changes state"},
		{"a callee's unchecked effect", "act", "steps:\n  - call: {macro: open_menu}\n", "steps[0]: macro open_menu leaves an effect unchecked"},
		{"a later check does not cover an earlier action", "act", "steps:\n  - click: {role: button, name: Select all}\n  - click: {role: button, name: Archive}\n    expect: [{text_present: Archived}]\n", "steps[0]: this click"},
		{"a reason too short", "act", "steps:\n  - click: {role: button, name: Save}\n    unverified: fine\n", "steps[0].unverified: unverified needs a reason of at least 3 words"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := []File{{Path: "macros.d/m.yaml", Data: []byte(head(tc.risk) + tc.body)}, callee}
			_, diags := LoadFiles(files, Options{})
			var mine []string
			for _, d := range diags {
				if strings.HasSuffix(d.File, "m.yaml") {
					mine = append(mine, d.String())
				}
			}
			switch {
			case tc.want == "" && len(mine) > 0:
				t.Errorf("rejected: %s", strings.Join(mine, "\n"))
			case tc.want != "" && (len(mine) == 0 || !strings.Contains(strings.Join(mine, "\n"), tc.want)):
				t.Errorf("diagnostics %q, want one containing %q", mine, tc.want)
			}
		})
	}
}
