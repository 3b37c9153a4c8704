package fleettest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cpuBusy reads the machine's busy and total CPU time (jiffies, all cores)
// from /proc/stat.
func cpuBusy() (busy, total uint64) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := bytes.Cut(raw, []byte("\n"))
	f := strings.Fields(string(line))
	for i, v := range f[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

// usage samples, while a phase runs, the machine's CPU and the memory of
// the fleet's processes (every process whose command line names dir: the
// workers' browsers, plus the pids given).
type usage struct {
	dir  string
	pids []int
	cg   *cpuGroup
	cg0  uint64

	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	peakPSS uint64 // kB
	peakN   int    // browser processes at the peak
	b0, t0  uint64
	began   time.Time
}

func startUsage(cg *cpuGroup, dir string, pids ...int) *usage {
	u := &usage{dir: dir, pids: pids, cg: cg, stop: make(chan struct{}), began: time.Now()}
	u.b0, u.t0 = cpuBusy()
	u.cg0, _ = cg.usage()
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-u.stop:
				return
			case <-t.C:
				pss, n := u.sample()
				u.mu.Lock()
				if pss > u.peakPSS {
					u.peakPSS, u.peakN = pss, n
				}
				u.mu.Unlock()
			}
		}
	}()
	return u
}

// sample sums the proportional set size of the fleet's processes.
func (u *usage) sample() (kb uint64, browsers int) {
	seen := map[int]bool{}
	for _, p := range u.pids {
		seen[p] = true
		kb += pss(p)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(u.dir)) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || seen[pid] {
			continue
		}
		seen[pid] = true
		kb += pss(pid)
		browsers++
	}
	return kb, browsers
}

// pss is a process's proportional set size in kB (0 when it is gone).
func pss(pid int) uint64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// end stops sampling and reports the CPU used over the phase — the
// fleet's own (fleetSec, from its cgroup; -1 without one) and the
// machine's busy share of all cores — and the fleet's peak memory.
func (u *usage) end() (fleetSec, busyShare float64, peakMB float64, browsers int) {
	close(u.stop)
	u.wg.Wait()
	b1, t1 := cpuBusy()
	if t1 > u.t0 {
		busyShare = float64(b1-u.b0) / float64(t1-u.t0)
	}
	fleetSec = -1
	if n, ok := u.cg.usage(); ok {
		fleetSec = float64(n-u.cg0) / 1e9
	}
	return fleetSec, busyShare, float64(u.peakPSS) / 1024, u.peakN
}

// cpuGroup is a cgroup (v1 cpuacct, or v2 with the cpu controller) the
// fleet's processes are put in as they start; their children — browsers,
// renderers that come and go with each context — inherit it, so its usage
// is the fleet's own CPU, whatever else the machine runs. Nil when no
// writable hierarchy is mounted: the figure falls back to the machine's.
type cpuGroup struct {
	dir  string
	v2   bool
	base uint64
}

func newCPUGroup() *cpuGroup {
	name := fmt.Sprintf("macrokit-fleettest-%d", os.Getpid())
	for _, c := range []struct {
		root string
		v2   bool
	}{{"/sys/fs/cgroup/cpuacct", false}, {"/sys/fs/cgroup/unified", true}, {"/sys/fs/cgroup", true}} {
		dir := filepath.Join(c.root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			continue
		}
		g := &cpuGroup{dir: dir, v2: c.v2}
		if _, ok := g.usage(); ok {
			return g
		}
		_ = os.Remove(dir)
	}
	return nil
}

// add moves pid (a process just started, before it starts children) in.
func (g *cpuGroup) add(pid int) {
	if g != nil {
		_ = os.WriteFile(filepath.Join(g.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644)
	}
}

// usage is the group's CPU time in nanoseconds.
func (g *cpuGroup) usage() (uint64, bool) {
	if g == nil {
		return 0, false
	}
	if !g.v2 {
		raw, err := os.ReadFile(filepath.Join(g.dir, "cpuacct.usage"))
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 64)
		return n, err == nil
	}
	raw, err := os.ReadFile(filepath.Join(g.dir, "cpu.stat"))
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "usage_usec "); ok {
			n, err := strconv.ParseUint(v, 10, 64)
			return n * 1000, err == nil
		}
	}
	return 0, false
}

// remove moves what is left back to the root and deletes the group.
func (g *cpuGroup) remove() {
	if g == nil {
		return
	}
	raw, _ := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	for _, pid := range strings.Fields(string(raw)) {
		_ = os.WriteFile(filepath.Join(filepath.Dir(g.dir), "cgroup.procs"), []byte(pid), 0o644)
	}
	_ = os.Remove(g.dir)
}
