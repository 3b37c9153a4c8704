//go:build !unix

package gate

import "time"

// processCPU is not measured here; the benchmark then reports wall time only.
func processCPU() time.Duration { return 0 }
