package engine

// Benchmarks for the four scenarios that bench/compare measures against a
// Playwright baseline on the same pages in the same run (see bench/README.md).
// They are not pass/fail performance tests: they only report figures, and the
// ratios are computed by bench/compare.
//
//	go test -run '^$' -bench 'VerifiedClick|ClickAsyncRequest|FillValue|Perception2000' -benchtime=30x ./engine/
//
// The pages come from bench/server: $MACROKIT_BENCH_URL when set (bench/compare
// sets it, so both sides hit one server), else a server started here.
// $MACROKIT_BENCH_WARMUP untimed iterations (default 5) run before timing.
// Every iteration resets the page in-page (window.benchReset()) outside the
// timed region. Besides ns/op (a mean) each benchmark reports median-ms and
// p90-ms over its per-iteration durations; bench/compare uses median-ms.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	benchserver "github.com/macrokit/macrokit-go/bench/server"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Names and values shared with bench/playwright/bench.mjs; keep them in step.
const (
	benchFillValue = "Ada Lovelace 1815"
	benchStepLimit = 10 * time.Second
)

// BenchmarkVerifiedClick is scenario (a): click "Add" and prove the click
// worked (#status reads "Row 1 added"); the effect is synchronous, no network.
func BenchmarkVerifiedClick(b *testing.B) {
	step := Step{
		Action: vocab.ActClick,
		Target: &Target{Role: "button", Name: "Add"},
		Expect: []Condition{{Kind: vocab.CondTextPresent, Target: &Target{CSS: "#status"}, Text: "Row 1 added"}},
	}
	benchStep(b, "/click.html", step)
}

// BenchmarkClickAsyncRequest is scenario (b): click "Load"; the page fetches
// /api/slow?ms=100 and only then writes "Loaded 100 ms" into #status. The
// floor is the 100 ms request plus one frame.
func BenchmarkClickAsyncRequest(b *testing.B) {
	step := Step{
		Action: vocab.ActClick,
		Target: &Target{Role: "button", Name: "Load"},
		Expect: []Condition{{Kind: vocab.CondTextPresent, Target: &Target{CSS: "#status"}, Text: "Loaded 100 ms"}},
	}
	benchStep(b, "/async.html?ms=100", step)
}

// BenchmarkFillValue is scenario (c): fill the "Full name" input and check
// that its value is exactly what was filled.
func BenchmarkFillValue(b *testing.B) {
	step := Step{
		Action: vocab.ActFill,
		Target: &Target{Label: "Full name"},
		Value:  benchFillValue,
		Expect: []Condition{{Kind: vocab.CondValueEquals, Target: &Target{Label: "Full name"}, Value: benchFillValue}},
	}
	benchStep(b, "/fill.html", step)
}

// BenchmarkPerception2000 is scenario (d): one snapshot of a page with 2,000
// interactive elements (buttons, links, labelled inputs, selects, textareas,
// ARIA buttons and tabs), most of them below the fold.
func BenchmarkPerception2000(b *testing.B) {
	p := benchPage(b, "/perception.html")
	// Once, untimed: the snapshot must really list the 2,000 elements, or
	// the comparison with Playwright's full-page snapshot would be unfair.
	snap, err := p.Snapshot(benchCtx(b), SnapshotOptions{})
	if err != nil {
		b.Fatalf("snapshot: %v", err)
	}
	if n := len(snap.Elements); n < 2000 || snap.Truncated {
		b.Fatalf("snapshot lists %d elements (truncated %v), want >= 2000: the page has 2,000 interactive elements", n, snap.Truncated)
	}
	benchLoop(b, p, func(ctx context.Context) error {
		_, err := p.Snapshot(ctx, SnapshotOptions{})
		return err
	})
}

// benchStep times Page.Do(step) on path: grounding, actionability, input and
// verification of the post-conditions, as a macro step runs it.
func benchStep(b *testing.B, path string, step Step) {
	b.Helper()
	p := benchPage(b, path)
	// One untimed probe: an engine that rejects this valid step as invalid
	// cannot run it yet (e.g. Page.Do not wired): skip with its reason
	// rather than fail, so that bench/compare reports it as not measured.
	benchReset(b, p)
	if _, err := p.Do(benchCtx(b), step); IsCode(err, CodeInvalid) {
		b.Skipf("Page.Do cannot run the step: %v", err)
	}
	benchLoop(b, p, func(ctx context.Context) error {
		res, err := p.Do(ctx, step)
		switch {
		case err != nil:
		case res == nil:
			err = fmt.Errorf("Do returned neither a result nor an error")
		case res.Status != Passed:
			err = fmt.Errorf("Do returned no error but status %q", res.Status)
		}
		return err
	})
}

// benchLoop runs warmup iterations, then b.N timed ones, each after an
// untimed in-page reset, and reports median-ms and p90-ms.
func benchLoop(b *testing.B, p *Page, op func(context.Context) error) {
	b.Helper()
	warmup := 5
	if v := os.Getenv("MACROKIT_BENCH_WARMUP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			b.Fatalf("MACROKIT_BENCH_WARMUP=%q: want a count", v)
		}
		warmup = n
	}
	for i := range warmup {
		benchReset(b, p)
		ctx, cancel := context.WithTimeout(context.Background(), benchStepLimit)
		err := op(ctx)
		cancel()
		if err != nil {
			b.Fatalf("warmup %d: %v", i, err)
		}
	}
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		benchReset(b, p)
		b.StartTimer()
		ctx, cancel := context.WithTimeout(context.Background(), benchStepLimit)
		t0 := time.Now()
		err := op(ctx)
		d := time.Since(t0)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		durs = append(durs, d)
	}
	b.StopTimer()
	med, p90 := benchStats(durs)
	b.ReportMetric(med, "median-ms")
	b.ReportMetric(p90, "p90-ms")
}

// benchStats returns the median and the nearest-rank 90th percentile in
// milliseconds, with the same definitions as bench/playwright/bench.mjs.
func benchStats(durs []time.Duration) (median, p90 float64) {
	if len(durs) == 0 {
		return 0, 0
	}
	s := slices.Clone(durs)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	n := len(s)
	if n%2 == 1 {
		median = ms(s[n/2])
	} else {
		median = (ms(s[n/2-1]) + ms(s[n/2])) / 2
	}
	i := (9*n+9)/10 - 1 // ceil(0.9 n) - 1
	return median, ms(s[max(i, 0)])
}

// benchPage opens a page of the shared browser on a bench page.
func benchPage(b *testing.B, path string) *Page {
	b.Helper()
	base := os.Getenv("MACROKIT_BENCH_URL")
	if base == "" {
		s := benchserver.New()
		b.Cleanup(s.Close)
		base = s.URL
	}
	p := newTestPage(b)
	if err := p.Goto(benchCtx(b), strings.TrimRight(base, "/")+path); err != nil {
		b.Fatal(err)
	}
	return p
}

func benchReset(b *testing.B, p *Page) {
	b.Helper()
	res, err := p.Rod().Context(benchCtx(b)).Eval(`() => window.benchReset()`)
	if err != nil {
		b.Fatalf("benchReset: %v", err)
	}
	if !res.Value.Bool() {
		b.Fatalf("benchReset returned %s", res.Value.JSON("", ""))
	}
}

func benchCtx(b *testing.B) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), benchStepLimit)
	b.Cleanup(cancel)
	return ctx
}

func TestBenchStats(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	for _, c := range []struct {
		in       []time.Duration
		med, p90 float64
	}{
		{ms(5), 5, 5},
		{ms(4, 1, 3, 2), 2.5, 4},
		{ms(10, 9, 8, 7, 6, 5, 4, 3, 2, 1), 5.5, 9},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), 6, 10},
	} {
		med, p90 := benchStats(c.in)
		if med != c.med || p90 != c.p90 {
			t.Errorf("benchStats(%v) = %v, %v; want %v, %v", c.in, med, p90, c.med, c.p90)
		}
	}
}
