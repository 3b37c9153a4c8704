package cli

import "embed"

// playbooks holds the embedded scripted-model playbooks (--scripted NAME).
//
//go:embed playbooks/*.yaml
var playbookFS embed.FS

// embeddedPlaybooks returns the embedded playbooks by name.
func embeddedPlaybooks() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := playbookFS.ReadDir("playbooks")
	for _, e := range entries {
		data, err := playbookFS.ReadFile("playbooks/" + e.Name())
		if err == nil {
			out[e.Name()[:len(e.Name())-len(".yaml")]] = data
		}
	}
	return out
}
