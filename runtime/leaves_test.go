package runtime

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeavesLinkOnlyTheStandardLibrary: the leaves every binary (and the
// engine) links import nothing outside the standard library but the
// module's own stdlib-only helpers named here.
func TestLeavesLinkOnlyTheStandardLibrary(t *testing.T) {
	const mod = "github.com/macrokit/macrokit-go/"
	tests := []struct {
		pkg   string
		allow []string
	}{
		{"./audit", nil},
		{"./identity", []string{"internal/atomicfile"}},
		{"./totp", nil},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", tt.pkg).Output()
			if err != nil {
				t.Skipf("go list: %v", err)
			}
			self := mod + "runtime/" + strings.TrimPrefix(tt.pkg, "./")
		next:
			for _, p := range strings.Fields(string(out)) {
				if p == self {
					continue
				}
				for _, a := range tt.allow {
					if p == mod+a {
						continue next
					}
				}
				t.Errorf("runtime/%s depends on %s", strings.TrimPrefix(tt.pkg, "./"), p)
			}
		})
	}
}
