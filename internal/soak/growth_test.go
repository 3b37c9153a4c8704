package main

import (
	"strings"
	"testing"
)

func series(n int, f func(i int) Sample) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// TestGrowth: flat and noisy series pass; steady growth of any resource is
// reported, by name; a spike in the middle is not a leak.
func TestGrowth(t *testing.T) {
	base := Sample{Goroutines: 100, RSSKB: 200 << 10, FDs: 40, Chromium: 8}
	cases := []struct {
		name    string
		samples []Sample
		want    []string // resources reported
	}{
		{"flat", series(30, func(int) Sample { return base }), nil},
		{"noisy", series(30, func(i int) Sample {
			s := base
			s.Goroutines += (i % 5) * 6
			s.FDs += i % 3
			s.Chromium += i % 4
			return s
		}), nil},
		{"spike in the middle", series(30, func(i int) Sample {
			s := base
			if i > 12 && i < 18 {
				s.Goroutines, s.FDs = 900, 400
			}
			return s
		}), nil},
		{"goroutine leak", series(30, func(i int) Sample { s := base; s.Goroutines += 10 * i; return s }), []string{"goroutines"}},
		{"fd leak", series(30, func(i int) Sample { s := base; s.FDs += 2 * i; return s }), []string{"fds"}},
		{"rss growth", series(30, func(i int) Sample { s := base; s.RSSKB += i * 10 << 10; return s }), []string{"rss_kb"}},
		{"chromium leak", series(30, func(i int) Sample { s := base; s.Chromium += i; return s }), []string{"chromium"}},
		{"everything", series(30, func(i int) Sample {
			return Sample{Goroutines: 100 + 20*i, RSSKB: 200<<10 + i*20<<10, FDs: 40 + 3*i, Chromium: 8 + i}
		}), []string{"goroutines", "rss_kb", "fds", "chromium"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Growth(tc.samples, DefaultTolerances)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %v", got, tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w+" grew") {
					t.Errorf("got %q, want %s", got[i], w)
				}
			}
		})
	}
	if _, err := Growth(series(5, func(int) Sample { return base }), DefaultTolerances); err == nil {
		t.Error("5 samples were enough to judge")
	}
}
