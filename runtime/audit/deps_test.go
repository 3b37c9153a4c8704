package audit

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: the audit log is a leaf every binary links; it
// imports nothing outside the standard library.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/macrokit/macrokit-go/runtime/audit" {
			t.Errorf("runtime/audit depends on %s", p)
		}
	}
}
