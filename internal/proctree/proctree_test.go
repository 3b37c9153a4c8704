package proctree

import (
	"os"
	"os/exec"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, line string
		ok         bool
		want       Stat
	}{
		{"plain", "42 (chromium) S 7 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12345 0", true,
			Stat{PID: 42, Comm: "chromium", State: "S", PPID: 7, Start: "12345"}},
		{"spaces and parens in comm", "42 (a b) c)) Z 7", true, Stat{PID: 42, Comm: "a b) c)", State: "Z", PPID: 7}},
		{"no comm", "42 S 7", false, Stat{}},
		{"truncated", "42 (x)", false, Stat{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parse(42, tc.line)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("parse(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestDescendants(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	self, ok := Read(os.Getpid())
	if !ok || !self.Live() || self.Start == "" {
		t.Fatalf("Read(self) = %+v, %v", self, ok)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	found := false
	for _, d := range Descendants(os.Getpid()) {
		found = found || d.PID == cmd.Process.Pid
	}
	if !found {
		t.Fatalf("Descendants(self) misses the child %d", cmd.Process.Pid)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for _, d := range Descendants(os.Getpid()) {
		if d.PID == cmd.Process.Pid {
			t.Fatalf("a reaped child %d is still listed", d.PID)
		}
	}
}
