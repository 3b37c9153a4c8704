package main

import (
	"testing"
)

const sampleBench = `goos: linux
goarch: amd64
pkg: github.com/macrokit/macrokit-go/engine
cpu: Some CPU
BenchmarkVerifiedClick
BenchmarkVerifiedClick-2   	      30	  12345678 ns/op	        11.50 median-ms	        14.25 p90-ms
BenchmarkClickAsyncRequest
BenchmarkClickAsyncRequest-2   	      30	 120000000 ns/op	       119.0 median-ms	       121.0 p90-ms
BenchmarkFillValue
BenchmarkFillValue-2   	      30	   5000000 ns/op
BenchmarkPerception2000
    bench_test.go:79: needs Page.Snapshot(ctx, SnapshotOptions) (*Snapshot, error)
--- SKIP: BenchmarkPerception2000
PASS
`

func TestParseBench(t *testing.T) {
	figs, skipped := parseBench(sampleBench)
	if f := figs["verified_click"]; f == nil || f.MedianMS != 11.5 || f.P90MS != 14.25 || f.MeanMS != 12.346 || f.N != 30 {
		t.Errorf("verified_click = %+v", f)
	}
	if f := figs["click_async_request"]; f == nil || f.MedianMS != 119 {
		t.Errorf("click_async_request = %+v", f)
	}
	if f := figs["fill_value"]; f == nil || f.MedianMS != 5 || f.Method == "" {
		t.Errorf("fill_value without median-ms should fall back to the mean and say so: %+v", f)
	}
	if _, ok := figs["perception_2000"]; ok {
		t.Error("a skipped benchmark has figures")
	}
	if got := skipped["BenchmarkPerception2000"]; got != "needs Page.Snapshot(ctx, SnapshotOptions) (*Snapshot, error)" {
		t.Errorf("skip reason %q", got)
	}
}

func one(f *Figures) []*Figures { return []*Figures{f} }

func TestCompare(t *testing.T) {
	ours := map[string][]*Figures{
		"verified_click":      one(&Figures{MedianMS: 10, N: 30}),
		"click_async_request": one(&Figures{MedianMS: 122.5, N: 30}),
		"fill_value":          one(&Figures{MedianMS: 8, N: 30}),
	}
	pw := map[string][]*Figures{
		"verified_click":      one(&Figures{MedianMS: 40, N: 30}),
		"click_async_request": one(&Figures{MedianMS: 233.3, N: 30}),
		"fill_value":          one(&Figures{MedianMS: 10, N: 30}),
		"perception_2000":     one(&Figures{MedianMS: 300, N: 30}),
	}
	rows := compare(ours, map[string]string{"BenchmarkPerception2000": "needs Page.Snapshot"}, pw)
	by := map[string]Row{}
	for _, r := range rows {
		by[r.Scenario] = r
	}
	if r := by["verified_click"]; *r.Ratio != 0.25 || !*r.Meets || r.Baseline != "playwright" || r.RoundRatios != nil {
		t.Errorf("verified_click: %+v", r)
	}
	if r := by["click_async_request"]; r.Baseline != "floor" || *r.Ratio != 1.05 || !*r.Meets || *r.PlaywrightRatio != 2 {
		t.Errorf("click_async_request: ratio %v meets %v pw %v", *r.Ratio, *r.Meets, *r.PlaywrightRatio)
	}
	if r := by["fill_value"]; *r.Ratio != 0.8 || *r.Meets {
		t.Errorf("fill_value: %+v", r)
	}
	if r := by["perception_2000"]; r.Ratio != nil || r.Meets != nil || r.Skipped == "" {
		t.Errorf("perception_2000: %+v", r)
	}
}

// With rounds, each ratio pairs the two sides' figures of one round, and the
// row's ratio is the median of those, not the ratio of the medians.
func TestCompareRounds(t *testing.T) {
	ours := map[string][]*Figures{"verified_click": {
		{MedianMS: 10, P90MS: 12, MeanMS: 11, N: 10},
		{MedianMS: 40, P90MS: 44, MeanMS: 41, N: 10}, // a noisy round for both sides
		nil, // ours failed in round 3
		{MedianMS: 12, P90MS: 13, MeanMS: 12, N: 10},
	}}
	pw := map[string][]*Figures{"verified_click": {
		{MedianMS: 40, N: 10},
		{MedianMS: 80, N: 10},
		{MedianMS: 30, N: 10},
		{MedianMS: 30, N: 10},
	}}
	r := compare(ours, nil, pw)[0]
	// round ratios 0.25, 0.5, 0.4 -> median 0.4
	if len(r.RoundRatios) != 3 || *r.Ratio != 0.4 || !*r.Meets {
		t.Errorf("ratios %v ratio %v meets %v", r.RoundRatios, *r.Ratio, *r.Meets)
	}
	if r.Ours.MedianMS != 12 || r.Ours.P90MS != 13 || r.Ours.N != 30 || r.Ours.MeanMS != 21.333 {
		t.Errorf("ours aggregate %+v", r.Ours)
	}
	if r.Playwright.MedianMS != 35 || r.Playwright.N != 40 {
		t.Errorf("playwright aggregate %+v", r.Playwright)
	}
	if aggregate([]*Figures{nil, nil}) != nil {
		t.Error("aggregate of nothing should be nil")
	}
}

// The batch scenario is a rate: its ratio is ours / Playwright in rows per
// minute (Playwright's wall time over ours), and it meets its target when
// at least the target.
func TestCompareBatchRate(t *testing.T) {
	ours := map[string][]*Figures{batchKey: {
		rateFigures(20e9, batchRows, "ours"), // 20 s: 150 rows/min
		rateFigures(25e9, batchRows, "ours"),
	}}
	pw := map[string][]*Figures{batchKey: {
		rateFigures(40e9, batchRows, "pw"), // 2.0x
		rateFigures(40e9, batchRows, "pw"), // 1.6x
	}}
	var r Row
	for _, row := range compare(ours, nil, pw) {
		if row.Scenario == batchKey {
			r = row
		}
	}
	if r.Ratio == nil || *r.Ratio != 1.8 || !*r.Meets || !r.AtLeast || len(r.RoundRatios) != 2 {
		t.Fatalf("batch row %+v", r)
	}
	if r.Ours.RowsPerMin != 135 || r.Playwright.RowsPerMin != 75 || r.Ours.N != 2*batchRows {
		t.Errorf("aggregates: ours %+v, playwright %+v", r.Ours, r.Playwright)
	}
	pw[batchKey][0] = rateFigures(30e9, batchRows, "pw") // 1.5x and 1.6x
	for _, row := range compare(ours, nil, pw) {
		if row.Scenario == batchKey && (*row.Meets || *row.Ratio != 1.55) {
			t.Errorf("a slower batch meets the target: %+v", row)
		}
	}
}
