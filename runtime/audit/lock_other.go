//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package audit

import "os"

// Without flock, only the Log's own mutex orders appends: goroutines of one
// process are safe, several processes appending to one log are not (their
// lines stay whole under O_APPEND, but two may chain onto the same record,
// which Verify then reports).
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }
