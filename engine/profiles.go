package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/internal/proctree"
)

// Profile directories. Each launched browser gets a temporary
// user-data-dir, removed by Close. A process killed with SIGKILL cannot
// remove it, so the directory names its owner (ownerFile: the pid and the
// start time of the process that launched the browser) and every Launch
// first sweeps the sibling directories whose owner is gone. Chromium's own
// temporary files go to a tmp/ inside the profile (TMPDIR), so they are
// swept with it.

// profilePrefix starts the name of every profile directory the engine
// creates in os.TempDir().
const profilePrefix = "macrokit-chromium-"

// ownerFile, inside a profile directory, holds "<pid> <start time>" of
// the process that owns it.
const ownerFile = "macrokit-owner"

// unownedGrace is how old a profile directory without an owner file must
// be before a sweep removes it: younger, it may be one another process is
// creating right now.
const unownedGrace = 10 * time.Minute

// newProfileDir sweeps stale profile directories, then creates one owned
// by this process with a tmp/ for Chromium's own temporary files.
func newProfileDir() (string, error) {
	_, _ = SweepProfiles(os.TempDir())
	dir, err := os.MkdirTemp("", profilePrefix)
	if err != nil {
		return "", err
	}
	owner := strconv.Itoa(os.Getpid())
	if st, ok := procStart(os.Getpid()); ok {
		owner += " " + st
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner+"\n"), 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// maxSocketPath bounds the path of a Unix socket (sun_path: 108 bytes on
// Linux, 104 on macOS), where Chromium puts its SingletonSocket:
// $TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket.
const maxSocketPath = 104

// profileTmp is the TMPDIR to give the Chromium of profile dir: its tmp/,
// unless that path is too long for Chromium's socket ("": leave TMPDIR).
func profileTmp(dir string) string {
	tmp := filepath.Join(dir, "tmp")
	if len(tmp)+len("/.org.chromium.Chromium.XXXXXX/SingletonSocket") >= maxSocketPath {
		return ""
	}
	return tmp
}

// SweepProfiles removes the engine's profile directories in root whose
// owner process is gone, and returns them. A directory is kept while its
// owner (pid and start time, so a reused pid is not taken for the owner)
// is alive; one without an owner file (an older version's) is removed when
// the Chromium its SingletonLock names is gone, or when it is older than
// a grace period and has no lock. It needs /proc to tell; without it,
// nothing is removed.
func SweepProfiles(root string) ([]string, error) {
	if _, ok := procStart(os.Getpid()); !ok {
		return nil, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), profilePrefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if !staleProfile(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err == nil {
			removed = append(removed, dir)
		}
	}
	return removed, nil
}

// staleProfile reports whether the profile directory's owner is gone.
func staleProfile(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err == nil {
		f := strings.Fields(string(b))
		if len(f) != 2 {
			return false // not ours to judge
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 0 {
			return false
		}
		st, alive := procStart(pid)
		return !alive || st != f[1]
	}
	// No owner file: Chromium's lock names its process as host-pid.
	if target, err := os.Readlink(filepath.Join(dir, "SingletonLock")); err == nil {
		i := strings.LastIndexByte(target, '-')
		pid, err := strconv.Atoi(target[i+1:])
		if err != nil || pid <= 0 {
			return false
		}
		host, _ := os.Hostname()
		if target[:max(i, 0)] != host {
			return false // another machine's (a shared /tmp)
		}
		cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return err != nil || !bytes.Contains(cmd, []byte(dir))
	}
	st, err := os.Stat(dir)
	return err == nil && time.Since(st.ModTime()) > unownedGrace
}

// procStart returns the start time of process pid (field 22 of
// /proc/<pid>/stat, in clock ticks since boot) and whether it is alive (a
// zombie owns nothing any more).
func procStart(pid int) (string, bool) {
	st, ok := proctree.Read(pid)
	if !ok || !st.Live() || st.Start == "" {
		return "", false
	}
	return st.Start, true
}
