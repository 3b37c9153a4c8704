package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

// TestLaunchSweepsStaleProfiles: the profile directories a killed process
// left behind are removed by the next Launch; those of live processes (and
// one being created) stay. Real Chromium.
func TestLaunchSweepsStaleProfiles(t *testing.T) {
	if _, ok := procStart(os.Getpid()); !ok {
		t.Skip("no /proc")
	}
	short, err := os.MkdirTemp("/tmp", "mk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(short) })
	// A TMPDIR too long for Chromium's socket inside the profile (but not
	// for Chromium itself): Chromium keeps the TMPDIR it was given, and
	// still starts.
	long, err := os.MkdirTemp("/tmp", strings.Repeat("d", 36))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(long) })
	for _, tc := range []struct {
		name, root string
		inProfile  bool // Chromium's temporary files go inside the profile
	}{{"short TMPDIR", short, true}, {"long TMPDIR", long, false}} {
		t.Run(tc.name, func(t *testing.T) { sweepAndLaunch(t, tc.root, tc.inProfile) })
	}
}

func sweepAndLaunch(t *testing.T, root string, inProfile bool) {
	t.Setenv("TMPDIR", root)
	self, _ := procStart(os.Getpid())
	host, _ := os.Hostname()
	old := time.Now().Add(-time.Hour)
	type dir struct {
		name  string
		owner string // the owner file's content ("" = none)
		lock  string // SingletonLock's target ("" = none)
		old   bool   // mtime an hour ago
		stays bool
	}
	dirs := []dir{
		{name: "dead-owner", owner: strconv.Itoa(deadPID(t)) + " 12345", stays: false},
		{name: "reused-pid", owner: strconv.Itoa(os.Getpid()) + " 1", stays: false}, // our pid, another start time
		{name: "live-owner", owner: strconv.Itoa(os.Getpid()) + " " + self, stays: true},
		{name: "legacy-dead-lock", lock: host + "-" + strconv.Itoa(deadPID(t)), stays: false},
		{name: "legacy-live-pid", lock: host + "-" + strconv.Itoa(os.Getpid()), stays: false}, // alive, but not a Chromium of that dir
		{name: "other-host-lock", lock: "elsewhere-1", old: true, stays: true},
		{name: "legacy-old", old: true, stays: false},
		{name: "being-created", stays: true},
		{name: "garbled-owner", owner: "what", stays: true},
	}
	for _, d := range dirs {
		p := filepath.Join(root, profilePrefix+d.name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "Local State"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		if d.owner != "" {
			if err := os.WriteFile(filepath.Join(p, ownerFile), []byte(d.owner+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if d.lock != "" {
			if err := os.Symlink(d.lock, filepath.Join(p, "SingletonLock")); err != nil {
				t.Fatal(err)
			}
		}
		if d.old {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Not a profile of ours: never touched.
	if err := os.Mkdir(filepath.Join(root, "other-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Launch(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	prof := b.ProfileDir()
	for _, d := range dirs {
		_, err := os.Stat(filepath.Join(root, profilePrefix+d.name))
		if got := err == nil; got != d.stays {
			t.Errorf("%s: stays %v, want %v", d.name, got, d.stays)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "other-dir")); err != nil {
		t.Errorf("a directory that is not a profile was removed: %v", err)
	}
	if filepath.Dir(prof) != root {
		t.Errorf("profile %s not in TMPDIR %s", prof, root)
	}
	if b, err := os.ReadFile(filepath.Join(prof, ownerFile)); err != nil || string(b) != strconv.Itoa(os.Getpid())+" "+self+"\n" {
		t.Errorf("owner file %q, %v", b, err)
	}
	// The browser's profile is live: a sweep now keeps it.
	if removed, _ := SweepProfiles(root); len(removed) != 0 {
		t.Errorf("a sweep removed %v while the browser runs", removed)
	}
	if inProfile {
		if m, _ := filepath.Glob(filepath.Join(root, ".org.chromium.*")); len(m) != 0 {
			t.Errorf("Chromium temp files outside the profile: %v", m)
		}
		if m, _ := filepath.Glob(filepath.Join(prof, "tmp", "*")); len(m) == 0 {
			t.Errorf("nothing in the profile's tmp/: Chromium kept the old TMPDIR")
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(prof); !os.IsNotExist(err) {
		t.Errorf("Close left the profile: %v", err)
	}
}
