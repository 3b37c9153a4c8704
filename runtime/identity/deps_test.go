package identity

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: identities are a leaf the runtime and the engine link; it
// imports nothing outside the standard library.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/macrokit/macrokit-go/runtime/identity" {
			t.Errorf("runtime/identity depends on %s", p)
		}
	}
}
