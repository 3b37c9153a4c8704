//go:build unix

package serve_test

import (
	"syscall"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/serve"
)

// TestDefaultMaxConnsBelowNofile: under `ulimit -n 256` the default limit
// is 144, leaving descriptors for the log, the browser and outgoing calls.
func TestDefaultMaxConnsBelowNofile(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	defer func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) }()
	for _, tc := range []struct{ nofile, want uint64 }{{256, 144}, {100, 27}, {70, 8}, {1 << 20, serve.DefaultMaxConnsCeiling}} {
		if tc.nofile > old.Max {
			continue
		}
		lim := syscall.Rlimit{Cur: tc.nofile, Max: old.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		got := serve.DefaultMaxConns()
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
		if uint64(got) != tc.want {
			t.Errorf("nofile %d: DefaultMaxConns() = %d, want %d", tc.nofile, got, tc.want)
		}
	}
}
