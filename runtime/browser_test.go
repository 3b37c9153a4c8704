package runtime

import (
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/browsertest"
)

// launch returns the test binary's shared browser (see package
// browsertest), skipping the test without Chromium.
func launch(t *testing.T) *engine.Browser {
	t.Helper()
	return browsertest.Launch(t)
}

func TestMain(m *testing.M) {
	defer browsertest.Close()
	m.Run()
}
