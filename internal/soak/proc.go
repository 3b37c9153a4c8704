package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	ents, _ := os.ReadDir("/proc")
	parent, comm := map[int]int{}, map[int]string{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(s[j+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		parent[n], _ = strconv.Atoi(f[1])
		comm[n] = s[i+1 : j]
	}
	var out []int
	for n, c := range comm {
		if !strings.Contains(strings.ToLower(c), "chrom") {
			continue
		}
		for a, hops := parent[n], 0; a > 1 && hops < 64; a, hops = parent[a], hops+1 {
			if a == pid {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// alive reports whether a process still exists (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	j := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[j+1:])
	return len(f) > 0 && f[0] != "Z"
}
