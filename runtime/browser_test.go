package runtime

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
)

// The package's tests share one browser, launched by the first test that
// needs it and closed by TestMain; every test opens its pages in their own
// browser contexts (ContextPages), so they do not see each other.
var shared struct {
	once sync.Once
	b    *engine.Browser
	err  error
}

// launch returns the shared browser, skipping the test without Chromium.
func launch(t *testing.T) *engine.Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	if _, err := engine.FindBrowser(); err != nil {
		t.Skip("no Chromium:", err)
	}
	shared.once.Do(func() {
		// The launch context is the browser's lifetime: TestMain closes it.
		shared.b, shared.err = engine.Launch(context.Background(), engine.Options{})
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.b
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.b != nil {
		_ = shared.b.Close()
	}
	os.Exit(code)
}
