//go:build unix

package serve

import "syscall"

// nofileLimit is the process's soft RLIMIT_NOFILE (0: unknown).
func nofileLimit() int {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r) != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
