package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/macrokit/macrokit-go/bench/server"
)

// scenario ties a Go benchmark to its Playwright counterpart and its target.
type scenario struct {
	Key        string   // bench.mjs key
	Label      string   // short human label
	Benchmark  string   // Go benchmark name
	OursMethod string   // what the Go benchmark times
	Target     float64  // the ratio must be <= Target
	FloorMS    float64  // > 0: the ratio is ours / FloorMS instead of ours / Playwright
	References []string // extra bench.mjs keys run alongside, reported but not compared
	// Batch: a whole-run rate (batch.go) instead of a per-iteration time:
	// ours is `macrokit batch`, Playwright is batch.mjs, the ratio is ours /
	// Playwright in rows per minute, and it must be >= Target.
	Batch bool
}

// FloorAsyncMS is scenario (b)'s floor: the 100 ms the server sleeps plus one
// frame at 60 Hz for the page to show the answer.
const FloorAsyncMS = 100 + 1000.0/60

var scenarios = []scenario{
	{Key: "verified_click", Label: "(a) verified click, no network", Benchmark: "BenchmarkVerifiedClick",
		OursMethod: "Page.Do(click role=button name=Add, expect text_present #status 'Row 1 added')", Target: 0.5},
	{Key: "click_async_request", Label: "(b) click + 100 ms request", Benchmark: "BenchmarkClickAsyncRequest",
		OursMethod: "Page.Do(click role=button name=Load, expect text_present #status 'Loaded 100 ms')", Target: 1.05, FloorMS: FloorAsyncMS},
	{Key: "fill_value", Label: "(c) fill + value check", Benchmark: "BenchmarkFillValue",
		OursMethod: "Page.Do(fill label='Full name', expect value_equals)", Target: 0.7},
	{Key: "perception_2000", Label: "(d) perception, 2,000 elements", Benchmark: "BenchmarkPerception2000",
		OursMethod: "Page.Snapshot(SnapshotOptions{})", Target: 1.0, References: []string{"perception_2000_evaluate_all"}},
	{Key: batchKey, Label: "(e) batch add_customer, 50 rows", Target: 1.8, Batch: true},
}

// Figures is one side's measurement of one scenario.
type Figures struct {
	MedianMS float64 `json:"median_ms"`
	P90MS    float64 `json:"p90_ms,omitempty"`
	MeanMS   float64 `json:"mean_ms,omitempty"`
	N        int     `json:"n"`
	Method   string  `json:"method,omitempty"`
	// RowsPerMin is a batch run's rate (MedianMS is then the run's wall time).
	RowsPerMin float64 `json:"rows_per_min,omitempty"`
}

// Row is one scenario's comparison.
type Row struct {
	Scenario   string   `json:"scenario"`
	Label      string   `json:"label"`
	Ours       *Figures `json:"ours"`       // nil when not measured
	Playwright *Figures `json:"playwright"` // nil when not measured
	Skipped    string   `json:"ours_skipped,omitempty"`
	// Baseline is "playwright" or "floor"; BaselineMS the denominator.
	Baseline   string   `json:"baseline"`
	BaselineMS *float64 `json:"baseline_ms"`
	Ratio      *float64 `json:"ratio"` // ours median / baseline; nil when unmeasured
	// RoundRatios are the per-round ratios (with more than one round).
	RoundRatios []float64 `json:"round_ratios,omitempty"`
	// PlaywrightRatio is Playwright's median over the floor, for floor rows.
	PlaywrightRatio *float64 `json:"playwright_ratio,omitempty"`
	Target          float64  `json:"target"`
	// AtLeast: the ratio meets the target when >= it (a rate), not <=.
	AtLeast bool  `json:"at_least,omitempty"`
	Meets   *bool `json:"meets"` // nil when unmeasured
}

// Report is the -format json output.
type Report struct {
	Rows       []Row               `json:"scenarios"`
	Iterations int                 `json:"iterations"` // per scenario, side and round
	Rounds     int                 `json:"rounds"`
	Warmup     int                 `json:"warmup"`
	Extra      map[string]*Figures `json:"playwright_reference,omitempty"`
	Meta       map[string]any      `json:"meta"`
}

func main() { os.Exit(run()) }

// run is main with deferred cleanups (the server, the test binary) that an
// os.Exit would skip.
func run() int {
	n := flag.Int("n", 10, "timed iterations per scenario, side and round")
	rounds := flag.Int("rounds", 3, "rounds: the whole interleaved sequence runs this many times; ratios are the median of the per-round ratios")
	warmup := flag.Int("warmup", 5, "untimed warmup iterations per scenario and side")
	format := flag.String("format", "table", "output format: table or json")
	strict := flag.Bool("strict", false, "exit 1 when a scenario is unmeasured or misses its target")
	node := flag.String("node", "node", "node binary")
	serve := flag.String("serve", "", "only serve the bench pages on this address (e.g. 127.0.0.1:8080) until interrupted")
	skipOurs := flag.Bool("skip-ours", false, "skip the engine benchmarks")
	skipPW := flag.Bool("skip-playwright", false, "skip the Playwright baseline")
	only := flag.String("only", "", "comma-separated scenario keys to run (default all): verified_click,click_async_request,fill_value,perception_2000,"+batchKey)
	outFile := flag.String("out", "", "also write the JSON report to this file (e.g. bench/results/latest.json)")
	flag.Parse()
	if *n < 1 || *rounds < 1 || *warmup < 0 || (*format != "table" && *format != "json") {
		flag.Usage()
		return 2
	}
	if *serve != "" {
		fmt.Fprintf(os.Stderr, "serving bench pages on http://%s/\n", *serve)
		if err := serveForever(*serve); err != nil {
			logf("%v", err)
			return 1
		}
		return 0
	}
	if *only != "" {
		var keep []scenario
		for _, k := range strings.Split(*only, ",") {
			i := slices.IndexFunc(scenarios, func(s scenario) bool { return s.Key == strings.TrimSpace(k) })
			if i < 0 {
				logf("-only: unknown scenario %q", k)
				return 2
			}
			keep = append(keep, scenarios[i])
		}
		scenarios = keep
	}
	root, err := moduleRoot()
	if err != nil {
		logf("%v", err)
		return 1
	}
	srv := server.New()
	defer srv.Close()
	logf("bench server %s, %d rounds of %d iterations (+%d warmup) per scenario and side", srv.URL, *rounds, *n, *warmup)

	rep := Report{Iterations: *n, Rounds: *rounds, Warmup: *warmup, Meta: map[string]any{
		"go":       runtime.Version(),
		"goos":     runtime.GOOS,
		"goarch":   runtime.GOARCH,
		"cpus":     runtime.NumCPU(),
		"started":  time.Now().UTC().Format(time.RFC3339),
		"floor_ms": round3(FloorAsyncMS),
	}}
	// The sides take turns scenario by scenario, so that both measure a
	// scenario within seconds of each other on this shared machine; with
	// -rounds R the whole sequence runs R times and each round's figures are
	// kept apart, so that every ratio pairs measurements taken together.
	ours := map[string][]*Figures{} // by scenario key, one entry per round (nil: none)
	pw := map[string][]*Figures{}
	skipped := map[string]string{}
	broken := map[string]bool{} // our benchmark failed: do not run it again
	failed := false
	var testBin, bin string
	if !*skipOurs && slices.ContainsFunc(scenarios, func(s scenario) bool { return !s.Batch }) {
		tmp, err := os.MkdirTemp("", "macrokit-bench-")
		if err != nil {
			logf("%v", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		testBin = filepath.Join(tmp, "engine.test")
		logf("go test -c -o %s ./engine/", testBin)
		build := exec.Command("go", "test", "-c", "-o", testBin, "./engine/")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			logf("building the engine benchmarks: %v\n%s", err, tail(string(out), 40))
			failed, *skipOurs = true, true
		}
	}
	var batchRowsPath string
	var batchEmails []string
	if slices.ContainsFunc(scenarios, func(s scenario) bool { return s.Batch }) {
		tmp, err := os.MkdirTemp("", "macrokit-bench-")
		if err != nil {
			logf("%v", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		if batchRowsPath, batchEmails, err = writeBatchRows(tmp); err != nil {
			logf("%v", err)
			return 1
		}
		if !*skipOurs {
			bin = filepath.Join(tmp, "macrokit")
			logf("go build -o %s ./cmd/macrokit", bin)
			build := exec.Command("go", "build", "-o", bin, "./cmd/macrokit")
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				logf("building macrokit: %v\n%s", err, tail(string(out), 40))
				failed, broken[batchKey] = true, true
			}
		}
	}
	put := func(m map[string][]*Figures, key string, round int, f *Figures) {
		if m[key] == nil {
			m[key] = make([]*Figures, *rounds)
		}
		m[key][round] = f
	}
	for round := range *rounds {
		if *rounds > 1 {
			logf("round %d of %d", round+1, *rounds)
		}
		for _, s := range scenarios {
			if s.Batch {
				if !*skipOurs && !broken[s.Key] {
					f, err := runBatchOurs(bin, batchRowsPath, batchEmails)
					if err != nil {
						logf("macrokit %s: %v", s.Key, err)
						failed, broken[s.Key] = true, true
					} else {
						put(ours, s.Key, round, f)
					}
				}
				if !*skipPW {
					f, meta, err := runBatchPlaywright(root, *node, batchRowsPath, batchEmails)
					if err != nil {
						logf("playwright %s: %v", s.Key, err)
						failed = true
					} else {
						put(pw, s.Key, round, f)
					}
					if meta != nil && rep.Meta["playwright"] == nil {
						rep.Meta["playwright"] = meta
					}
				}
				continue
			}
			if !*skipOurs && skipped[s.Benchmark] == "" && !broken[s.Benchmark] {
				f, reason, err := runOurs(root, testBin, s, srv.URL, *n, *warmup)
				switch {
				case err != nil:
					logf("engine %s: %v", s.Benchmark, err)
					failed, broken[s.Benchmark] = true, true
				case reason != "":
					skipped[s.Benchmark] = reason
				default:
					put(ours, s.Key, round, f)
				}
			}
			if !*skipPW {
				only := append([]string{s.Key}, s.References...)
				figs, meta, err := runPlaywright(root, *node, srv.URL, *n, *warmup, only)
				if err != nil {
					logf("playwright %s: %v", s.Key, err)
					failed = true
				}
				for k, f := range figs {
					put(pw, k, round, f)
				}
				if meta != nil {
					rep.Meta["playwright"] = meta
				}
			}
		}
	}
	rep.Rows = compare(ours, skipped, pw)
	for k, fs := range pw {
		if f := aggregate(fs); f != nil && !isScenario(k) {
			if rep.Extra == nil {
				rep.Extra = map[string]*Figures{}
			}
			rep.Extra[k] = f
		}
	}
	if *outFile != "" {
		if err := writeJSON(*outFile, rep); err != nil {
			logf("%v", err)
			failed = true
		} else {
			logf("wrote %s", *outFile)
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			logf("%v", err)
			return 1
		}
	} else {
		printTable(os.Stdout, rep)
	}
	if failed {
		return 1
	}
	if *strict {
		for _, r := range rep.Rows {
			if r.Meets == nil || !*r.Meets {
				return 1
			}
		}
	}
	return 0
}

func isScenario(key string) bool {
	for _, s := range scenarios {
		if s.Key == key {
			return true
		}
	}
	return false
}

// compare builds the rows from both sides' per-round figures. A row's
// figures aggregate the rounds (see aggregate); its ratio is the median of the
// per-round ratios, each pairing the two sides' medians from one round.
func compare(ours map[string][]*Figures, skipped map[string]string, pw map[string][]*Figures) []Row {
	var rows []Row
	for _, s := range scenarios {
		r := Row{Scenario: s.Key, Label: s.Label, Ours: aggregate(ours[s.Key]), Playwright: aggregate(pw[s.Key]),
			Skipped: skipped[s.Benchmark], Target: s.Target, AtLeast: s.Batch}
		if s.Batch {
			r.Skipped = ""
		}
		if s.FloorMS > 0 {
			r.Baseline = "floor"
			r.BaselineMS = ptr(round3(s.FloorMS))
			if r.Playwright != nil {
				r.PlaywrightRatio = ptr(round3(r.Playwright.MedianMS / s.FloorMS))
			}
		} else {
			r.Baseline = "playwright"
			if r.Playwright != nil {
				r.BaselineMS = ptr(r.Playwright.MedianMS)
			}
		}
		o, b := ours[s.Key], pw[s.Key]
		for i := range o {
			var base float64
			switch {
			case o[i] == nil:
				continue
			case s.FloorMS > 0:
				base = s.FloorMS
			case i < len(b) && b[i] != nil:
				base = b[i].MedianMS
			}
			switch {
			case base > 0 && s.Batch: // rows per minute: ours / Playwright = Playwright's wall / ours
				r.RoundRatios = append(r.RoundRatios, round3(base/o[i].MedianMS))
			case base > 0:
				r.RoundRatios = append(r.RoundRatios, round3(o[i].MedianMS/base))
			}
		}
		if len(r.RoundRatios) > 0 {
			ratio := median(r.RoundRatios)
			r.Ratio = ptr(round3(ratio))
			if s.Batch {
				r.Meets = ptr(ratio >= s.Target)
			} else {
				r.Meets = ptr(ratio <= s.Target)
			}
		}
		if len(r.RoundRatios) < 2 {
			r.RoundRatios = nil
		}
		rows = append(rows, r)
	}
	return rows
}

// aggregate merges one side's per-round figures: the median of the round
// medians and of the round p90s, the mean of the means, the total count.
// Nil entries (rounds without a figure) are ignored; nil when none is left.
func aggregate(fs []*Figures) *Figures {
	var med, p90, mean, rpm []float64
	out := &Figures{}
	for _, f := range fs {
		if f == nil {
			continue
		}
		med, p90, mean = append(med, f.MedianMS), append(p90, f.P90MS), append(mean, f.MeanMS)
		if f.RowsPerMin > 0 {
			rpm = append(rpm, f.RowsPerMin)
		}
		out.N += f.N
		out.Method = f.Method
	}
	if len(med) == 0 {
		return nil
	}
	out.MedianMS, out.P90MS = round3(median(med)), round3(median(p90))
	if len(rpm) > 0 {
		out.RowsPerMin = round3(median(rpm))
	}
	var sum float64
	for _, v := range mean {
		sum += v
	}
	out.MeanMS = round3(sum / float64(len(mean)))
	return out
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func printTable(w io.Writer, rep Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tours median\tplaywright median\tratio\ttarget")
	for _, r := range rep.Rows {
		ours := "n/a"
		if r.Ours != nil {
			ours = fmtFigure(r.Ours)
		} else if r.Skipped != "" {
			ours = "skipped"
		}
		pw := "n/a"
		if r.Playwright != nil {
			pw = fmtFigure(r.Playwright)
		}
		ratio, target := "n/a", fmt.Sprintf("<= %.2f", r.Target)
		if r.AtLeast {
			target = fmt.Sprintf(">= %.2f", r.Target)
		}
		if r.Baseline == "floor" {
			pw += " (ref)"
			target += fmt.Sprintf(" of floor %s", fmtMS(*r.BaselineMS))
		}
		if r.Ratio != nil {
			ratio = fmt.Sprintf("%.2f", *r.Ratio)
			if r.Baseline == "floor" {
				ratio += " (ours/floor)"
			}
			if *r.Meets {
				target += "  ok"
			} else {
				target += "  MISSED"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Label, ours, pw, ratio, target)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d round(s) of %d timed iterations per side after %d warmup; medians are the median of the round medians;\n", rep.Rounds, rep.Iterations, rep.Warmup)
	fmt.Fprintf(w, "ratio = ours median / Playwright median within a round, median over the rounds")
	for _, r := range rep.Rows {
		if r.AtLeast {
			fmt.Fprintf(w, ",\nexcept %s: a whole run of %d rows per side (one run per round, process start to exit), ratio = ours rows/min / Playwright rows/min",
				strings.Fields(r.Label)[0], batchRows)
		}
		if r.Baseline == "floor" {
			fmt.Fprintf(w, ",\nexcept %s: ours median / floor (100 ms request + one 16.7 ms frame); Playwright shown for reference", strings.Fields(r.Label)[0])
			if r.PlaywrightRatio != nil {
				fmt.Fprintf(w, " (Playwright/floor %.2f)", *r.PlaywrightRatio)
			}
		}
	}
	fmt.Fprintln(w, ".")
	for _, r := range rep.Rows {
		if len(r.RoundRatios) > 0 {
			fmt.Fprintf(w, "%s per-round ratios: %v\n", r.Scenario, r.RoundRatios)
		}
	}
	for _, r := range rep.Rows {
		if r.Skipped != "" {
			fmt.Fprintf(w, "ours %s skipped: %s\n", r.Scenario, r.Skipped)
		}
	}
	for k, f := range rep.Extra {
		fmt.Fprintf(w, "playwright reference %s: median %s (%s)\n", k, fmtMS(f.MedianMS), f.Method)
	}
}

// runOurs runs one engine benchmark from the prebuilt test binary and returns
// its figures, or the reason it skipped.
func runOurs(root, testBin string, s scenario, url string, n, warmup int) (*Figures, string, error) {
	args := []string{"-test.run", "^$", "-test.bench", "^" + s.Benchmark + "$",
		"-test.benchtime", strconv.Itoa(n) + "x", "-test.count", "1", "-test.v"}
	logf("engine.test %s", strings.Join(args, " "))
	cmd := exec.Command(testBin, args...)
	cmd.Dir = filepath.Join(root, "engine") // as go test would: TestMain serves testdata/
	cmd.Env = append(os.Environ(), "MACROKIT_BENCH_URL="+url, "MACROKIT_BENCH_WARMUP="+strconv.Itoa(warmup))
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	runErr := cmd.Run()
	figs, skipped := parseBench(out.String())
	if runErr != nil {
		return nil, "", fmt.Errorf("%w\n%s", runErr, tail(out.String(), 40))
	}
	if reason, ok := skipped[s.Benchmark]; ok {
		return nil, reason, nil
	}
	f, ok := figs[s.Key]
	if !ok {
		return nil, "", fmt.Errorf("no result for %s in the output:\n%s", s.Benchmark, tail(out.String(), 40))
	}
	f.Method = strings.TrimSpace(s.OursMethod + " " + f.Method)
	return f, "", nil
}

var (
	benchLine = regexp.MustCompile(`^(Benchmark\w+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)
	skipLine  = regexp.MustCompile(`^--- SKIP: (Benchmark\w+?)(?:-\d+)?\b`)
)

// parseBench reads `go test -bench -v` output: result lines
// ("BenchmarkX-2  30  1234 ns/op  1.2 median-ms  1.5 p90-ms") and skips
// ("--- SKIP: BenchmarkX" followed by the indented reason).
func parseBench(out string) (map[string]*Figures, map[string]string) {
	byBench := map[string]string{}
	for _, s := range scenarios {
		byBench[s.Benchmark] = s.Key
	}
	figs := map[string]*Figures{}
	skipped := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	lastLog := "" // the latest indented "file.go:N: message" line: with -v, b.Skip's reason precedes "--- SKIP"
	for sc.Scan() {
		line := sc.Text()
		if m := skipLine.FindStringSubmatch(line); m != nil {
			skipped[m[1]] = "skipped"
			if lastLog != "" {
				skipped[m[1]] = lastLog
			}
			lastLog = ""
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(line, " ") && strings.Contains(t, ".go:") {
			if _, reason, ok := strings.Cut(t, ": "); ok {
				lastLog = reason
			}
			continue
		}
		if !strings.HasPrefix(line, " ") {
			lastLog = ""
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key, ok := byBench[m[1]]
		if !ok {
			continue
		}
		iters, _ := strconv.Atoi(m[2])
		f := &Figures{N: iters}
		fields := strings.Fields(m[3])
		haveMedian := false
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			switch fields[i+1] {
			case "ns/op":
				f.MeanMS = round3(v / 1e6)
			case "median-ms":
				f.MedianMS, haveMedian = v, true
			case "p90-ms":
				f.P90MS = v
			}
		}
		if !haveMedian { // an older benchmark without the metric: fall back to the mean
			f.MedianMS = f.MeanMS
			f.Method = "[mean: no median-ms metric]"
		}
		figs[key] = f
	}
	return figs, skipped
}

// runPlaywright runs bench.mjs on the scenarios in only and returns their
// figures by key, and its _meta object.
func runPlaywright(root, node, url string, n, warmup int, only []string) (map[string]*Figures, map[string]any, error) {
	dir := filepath.Join(root, "bench", "playwright")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		return nil, nil, fmt.Errorf("%s/node_modules missing: run `cd bench/playwright && npm ci --no-audit --no-fund` (or make bench)", dir)
	}
	args := []string{"bench.mjs", url, strconv.Itoa(n), "--warmup", strconv.Itoa(warmup), "--only", strings.Join(only, ",")}
	logf("%s %s (in bench/playwright)", node, strings.Join(args, " "))
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("%w\n%s", err, tail(stderr.String()+stdout.String(), 40))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		return nil, nil, fmt.Errorf("bench.mjs output is not JSON: %w\n%s", err, tail(stdout.String(), 20))
	}
	figs := map[string]*Figures{}
	var meta map[string]any
	for k, v := range raw {
		if k == "_meta" {
			_ = json.Unmarshal(v, &meta)
			continue
		}
		var f Figures
		if err := json.Unmarshal(v, &f); err != nil {
			return nil, nil, fmt.Errorf("bench.mjs %s: %w", k, err)
		}
		figs[k] = &f
	}
	return figs, meta, nil
}

func writeJSON(path string, rep Report) error {
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

// serveForever serves the bench pages on addr, for poking at them by hand.
func serveForever(addr string) error {
	return http.ListenAndServe(addr, server.Handler())
}

// moduleRoot finds the directory holding this module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run compare inside the macrokit-go module")
	}
	return filepath.Dir(gomod), nil
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

func fmtMS(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.1f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.2f ms", v)
	default:
		return fmt.Sprintf("%.3f ms", v)
	}
}

// fmtFigure is a median time, or a batch run's wall time and rate.
func fmtFigure(f *Figures) string {
	if f.RowsPerMin > 0 {
		return fmt.Sprintf("%.1f s (%.1f rows/min)", f.MedianMS/1000, f.RowsPerMin)
	}
	return fmtMS(f.MedianMS)
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func ptr[T any](v T) *T { return &v }

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "compare: "+format+"\n", args...) }
