//go:build unix

package gate

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process used (user and system), so a
// benchmark can report throughput per CPU second, which a busy machine does
// not distort the way wall time is.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
