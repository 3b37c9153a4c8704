package totp

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: one-time codes are a leaf the runtime links; it
// imports nothing outside the standard library.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/macrokit/macrokit-go/runtime/totp" {
			t.Errorf("runtime/totp depends on %s", p)
		}
	}
}
