package serve_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestServeLinksNoNATS: the serving core reaches a fleet through
// Options.Fleet; the queue and its NATS client stay out of what it links
// (runtime/fleet brings them to the binaries that use them).
func TestServeLinksNoNATS(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/nats-io/") || strings.HasSuffix(p, "/runtime/queue") || strings.HasSuffix(p, "/runtime/fleet") {
			t.Errorf("runtime/serve links %s", p)
		}
	}
}
