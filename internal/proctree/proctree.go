package proctree

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Stat is what this package reads of /proc/<pid>/stat.
type Stat struct {
	PID   int
	Comm  string // the command name (field 2), spaces included
	State string // field 3: R, S, Z, ...
	PPID  int
	Start string // field 22: start time in clock ticks since boot
}

// Live reports whether the process still runs: not a zombie or dead.
func (s Stat) Live() bool { return s.State != "Z" && s.State != "X" }

// String is "pid:comm".
func (s Stat) String() string { return fmt.Sprintf("%d:%s", s.PID, s.Comm) }

// Read reads the stat line of process pid; ok is false when it is gone or
// the line cannot be read.
func Read(pid int) (Stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	return parse(pid, string(b))
}

// parse reads "pid (comm) state ppid ... starttime ...": the command name
// may hold spaces and parentheses, so it ends at the last ')'.
func parse(pid int, s string) (Stat, bool) {
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return Stat{}, false
	}
	f := strings.Fields(s[j+1:])
	if len(f) < 2 {
		return Stat{}, false
	}
	st := Stat{PID: pid, Comm: s[i+1 : j], State: f[0]}
	st.PPID, _ = strconv.Atoi(f[1])
	if len(f) >= 20 { // field 22 is f[19]
		st.Start = f[19]
	}
	return st, true
}

// Descendants lists the live processes below pid, at any depth.
func Descendants(pid int) []Stat {
	ents, _ := os.ReadDir("/proc")
	all := map[int]Stat{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := Read(n); ok {
			all[n] = st
		}
	}
	var out []Stat
	for n, st := range all {
		if !st.Live() {
			continue
		}
		for a, hops := st.PPID, 0; a > 1 && hops < 64; a, hops = all[a].PPID, hops+1 {
			if a == pid {
				out = append(out, all[n])
				break
			}
		}
	}
	return out
}
