package main

import (
	"fmt"
	"sort"
)

// Sample is one reading of the server's resources.
type Sample struct {
	Goroutines, RSSKB, FDs, Chromium int
}

// Tolerance is how much a resource may grow between the first and the
// last third of a run: Abs units, or Rel times its first-third level,
// whichever is larger.
type Tolerance struct {
	Abs int
	Rel float64
}

// Tolerances per resource, by the Sample field's name.
type Tolerances map[string]Tolerance

// DefaultTolerances allow the noise of a healthy server: goroutines come
// and go with in-flight calls, RSS with the garbage collector's pacing,
// Chromium's renderer count with the pages open at the moment.
var DefaultTolerances = Tolerances{
	"goroutines": {Abs: 40, Rel: 0.25},
	"rss_kb":     {Abs: 48 << 10, Rel: 0.30},
	"fds":        {Abs: 12, Rel: 0.20},
	"chromium":   {Abs: 6, Rel: 0.50},
}

// Growth compares the median of the first third of samples with the
// median of the last third, per resource, and describes each that grew
// beyond its tolerance (nil: none did). Medians, not ends, so one busy
// moment is not a leak. It needs at least 6 samples.
func Growth(samples []Sample, tol Tolerances) ([]string, error) {
	if len(samples) < 6 {
		return nil, fmt.Errorf("growth needs at least 6 samples, got %d", len(samples))
	}
	third := len(samples) / 3
	first, last := samples[:third], samples[len(samples)-third:]
	var out []string
	for _, r := range resources {
		a, b := median(first, r.get), median(last, r.get)
		t := tol[r.name]
		allowed := max(float64(t.Abs), t.Rel*float64(a))
		if float64(b-a) > allowed {
			out = append(out, fmt.Sprintf("%s grew from %d to %d (median of the first and last third; tolerance %.0f)", r.name, a, b, allowed))
		}
	}
	return out, nil
}

var resources = []struct {
	name string
	get  func(Sample) int
}{
	{"goroutines", func(s Sample) int { return s.Goroutines }},
	{"rss_kb", func(s Sample) int { return s.RSSKB }},
	{"fds", func(s Sample) int { return s.FDs }},
	{"chromium", func(s Sample) int { return s.Chromium }},
}

func median(ss []Sample, get func(Sample) int) int {
	v := make([]int, len(ss))
	for i, s := range ss {
		v[i] = get(s)
	}
	sort.Ints(v)
	return v[len(v)/2]
}
