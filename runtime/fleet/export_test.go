package fleet

import "time"

// SetTimeouts shortens enqueuePatience and cancelTimeout for a test; the
// returned func restores them.
func SetTimeouts(patience, cancel time.Duration) (restore func()) {
	oldP, oldC := enqueuePatience, cancelTimeout
	enqueuePatience, cancelTimeout = patience, cancel
	return func() { enqueuePatience, cancelTimeout = oldP, oldC }
}
