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

// clockTick is USER_HZ, jiffies per second, on Linux.
const clockTick = 100

// usage samples, while a phase runs, the machine's CPU and the memory of
// the fleet's processes (every process whose command line names dir: the
// workers' browsers, plus the pids given).
type usage struct {
	dir  string
	pids []int

	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	peakPSS uint64 // kB
	peakN   int    // browser processes at the peak
	b0, t0  uint64
	began   time.Time
}

func startUsage(dir string, pids ...int) *usage {
	u := &usage{dir: dir, pids: pids, stop: make(chan struct{}), began: time.Now()}
	u.b0, u.t0 = cpuBusy()
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

// end stops sampling and reports the machine's CPU use over the phase
// (core-seconds, and the busy share of all cores) and the peak memory.
func (u *usage) end() (coreSec, busyShare float64, peakMB float64, browsers int) {
	close(u.stop)
	u.wg.Wait()
	b1, t1 := cpuBusy()
	if t1 > u.t0 {
		busyShare = float64(b1-u.b0) / float64(t1-u.t0)
	}
	coreSec = float64(b1-u.b0) / clockTick
	return coreSec, busyShare, float64(u.peakPSS) / 1024, u.peakN
}
