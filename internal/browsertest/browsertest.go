package browsertest

import (
	"context"
	"sync"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
)

var shared struct {
	mu  sync.Mutex
	b   *engine.Browser
	err error
}

// Launch returns the test binary's browser, launching it on first use. It
// skips t under -short or when no Chromium is found, and fails t when the
// launch failed.
func Launch(t testing.TB) *engine.Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	if _, err := engine.FindBrowser(); err != nil {
		t.Skip("no Chromium:", err)
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.b == nil && shared.err == nil {
		// The launch context is the browser's lifetime: Close ends it.
		shared.b, shared.err = engine.Launch(context.Background(), engine.Options{})
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.b
}

// Close closes the shared browser, if one was launched. A package's
// TestMain calls it after m.Run:
//
//	func TestMain(m *testing.M) {
//		defer browsertest.Close()
//		m.Run()
//	}
func Close() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.b != nil {
		_ = shared.b.Close()
		shared.b = nil
	}
}
