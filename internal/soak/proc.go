package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/macrokit/macrokit-go/internal/proctree"
)

// rssKB is a process's resident set size (VmRSS), in KiB.
func rssKB(pid int) int {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}

// openFDs is the number of a process's open descriptors.
func openFDs(pid int) int {
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		return 0
	}
	return len(ents)
}

// chromium lists the live Chromium processes below pid.
func chromium(pid int) []int {
	var out []int
	for _, p := range proctree.Descendants(pid) {
		if strings.Contains(strings.ToLower(p.Comm), "chrom") {
			out = append(out, p.PID)
		}
	}
	return out
}

// alive reports whether a process still exists (and is not a zombie).
func alive(pid int) bool {
	st, ok := proctree.Read(pid)
	return ok && st.Live()
}
