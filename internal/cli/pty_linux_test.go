package cli

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// openTerminal returns a pseudo-terminal: the side a command reads as its
// stdin (a character device, so the terminal approvers ask) and the side
// the test types into.
func openTerminal(t *testing.T) (tty, keyboard *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		_ = m.Close()
		t.Skipf("TIOCGPTN: %v", e)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		_ = m.Close()
		t.Skipf("TIOCSPTLCK: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		_ = m.Close()
		t.Skipf("open the terminal: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(); _ = m.Close() })
	return s, m
}
