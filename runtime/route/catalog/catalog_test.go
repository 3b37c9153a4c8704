package catalog

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route/internal/synth"
)

var catalogTable = flag.Bool("catalog.table", false, "TestCatalogFigures also measures Select ns/op for its table (slower)")

// benchTasksDir holds the third-party routing benchmark's tasks (read-only,
// beside the repository; see its README).
const benchTasksDir = "../../../../shared/data/macrokit-bench/tasks"

// recallLOO is the leave-one-out recall@k for each k in ks: for every
// example of every macro, the fraction of held-out requests whose macro is
// among the top k of a catalog indexed without that example.
func recallLOO(c *Catalog, ks []int) []float64 {
	hits := make([]int, len(ks))
	total := 0
	for doc, m := range c.macros {
		for ex := range m.Examples {
			loo := c.withoutExample(doc, ex)
			total++
			for i, k := range ks {
				for _, s := range loo.Select(m.Examples[ex].Say, k) {
					if s == m {
						hits[i]++
						break
					}
				}
			}
		}
	}
	out := make([]float64, len(ks))
	for i := range ks {
		out[i] = float64(hits[i]) / float64(total)
	}
	return out
}

// coreRecallLOO is leave-one-out recall@k over the core macros' examples
// only: real macros among their synthetic near neighbours.
func coreRecallLOO(c *Catalog, k int) float64 {
	core := map[string]bool{}
	for _, m := range synth.Core() {
		core[m.Name] = true
	}
	hits, total := 0, 0
	for doc, m := range c.macros {
		if !core[m.Name] {
			continue
		}
		for ex := range m.Examples {
			total++
			for _, s := range c.withoutExample(doc, ex).Select(m.Examples[ex].Say, k) {
				if s == m {
					hits++
					break
				}
			}
		}
	}
	return float64(hits) / float64(total)
}

type benchTask struct {
	ID       string `json:"id"`
	Prompt   string `json:"prompt"`
	Expected struct {
		Tool *string `json:"tool"`
	} `json:"expected"`
}

// loadBenchTasks reads the benchmark requests that expect a macro.
func loadBenchTasks(tb testing.TB) []benchTask {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(benchTasksDir, "*.jsonl"))
	if len(files) == 0 {
		tb.Skipf("no benchmark tasks in %s", benchTasksDir)
	}
	var tasks []benchTask
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var t benchTask
			if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
				tb.Fatalf("%s: %v", f, err)
			}
			if t.Expected.Tool != nil {
				tasks = append(tasks, t)
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	return tasks
}

// benchRecall is the fraction of tasks whose expected macro is in the top k,
// and the tasks that missed.
func benchRecall(c *Catalog, tasks []benchTask, k int) (float64, []string) {
	var missed []string
	for _, t := range tasks {
		found := false
		for _, m := range c.Select(t.Prompt, k) {
			if m.Name == *t.Expected.Tool {
				found = true
				break
			}
		}
		if !found {
			missed = append(missed, fmt.Sprintf("%s %q (want %s)", t.ID, t.Prompt, *t.Expected.Tool))
		}
	}
	return 1 - float64(len(missed))/float64(len(tasks)), missed
}

// catalogFraming is the text a router adds around a partial catalog; it is
// counted in the prompt budget with the tools themselves.
const catalogFraming = "Call exactly one of the tools below, or answer in plain text if none fits. " +
	"These are the 8 most relevant of 1000 available macros; if none fits the request, say so."

// toolCosts is ToolTokens of every macro of r, by name.
func toolCosts(r *runtime.Registry) map[string]int {
	out := map[string]int{}
	for _, t := range r.Tools() {
		out[t.Name] = ToolTokens(t)
	}
	return out
}

// catalogTokens is what a set of macros costs in a request, framing included.
func catalogTokens(costs map[string]int, ms []*runtime.Macro) int {
	n := EstimateTokens(catalogFraming)
	for _, m := range ms {
		n += costs[m.Name]
	}
	return n
}

func TestSynRegistry(t *testing.T) {
	for _, n := range []int{10, 100, 1000} {
		r := synth.Registry(t, n)
		if r.Len() != n {
			t.Fatalf("registry of %d has %d macros", n, r.Len())
		}
		for _, name := range synth.GitHubCore {
			if _, ok := r.Lookup(name); !ok {
				t.Errorf("registry of %d lacks core macro %s", n, name)
			}
		}
		for _, m := range r.List() {
			if m.Intent == "" || m.Description == "" || len(m.Examples) == 0 || len(m.Params) == 0 {
				t.Errorf("macro %s is incomplete", m.Name)
			}
		}
	}
	if a, b := synth.Registry(t, 1000).Tools(), synth.Registry(t, 1000).Tools(); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("synthetic registry is not deterministic")
	}
}

func TestSelectSmallAndAll(t *testing.T) {
	r := synth.Registry(t, 100)
	c := New(r)
	names := func(ms []*runtime.Macro) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	all := names(r.List())
	cases := []struct {
		name string
		k    int
		want int
	}{
		{"k zero", 0, 100}, {"k negative", -3, 100}, {"k equals N", 100, 100}, {"k above N", 500, 100}, {"k below N", 8, 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := names(c.Select("triage PR 12 in acme/api", tc.k))
			if len(got) != tc.want {
				t.Fatalf("got %d macros, want %d", len(got), tc.want)
			}
			if tc.want == 100 && strings.Join(got, ",") != strings.Join(all, ",") {
				t.Error("all macros not in name order")
			}
		})
	}
	if got := names(c.Select("triage PR 12 in acme/api", 3)); got[0] != "triage_pull_request" {
		t.Errorf("top macro %v, want triage_pull_request first", got)
	}
	// Nothing matches: the first k by name.
	if got := names(c.Select("zzzz qqqq", 3)); strings.Join(got, ",") != strings.Join(all[:3], ",") {
		t.Errorf("no-match select %v, want %v", got, all[:3])
	}
}

func TestSelectDeterministic(t *testing.T) {
	r := synth.Registry(t, 1000)
	shuffled := r.List()
	for i := range shuffled {
		j := (i * 7919) % len(shuffled)
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	}
	r2, err := runtime.NewRegistry(shuffled...)
	if err != nil {
		t.Fatal(err)
	}
	a, b := New(r), New(r2)
	for _, q := range []string{"triage PR 12 in acme/api", "list the invoices", "export all shipped orders", "close", ""} {
		want := fmt.Sprint(a.Scores(q))
		if got := fmt.Sprint(b.Scores(q)); got != want {
			t.Errorf("Scores(%q) differs between builds", q)
		}
		first := fmt.Sprint(a.Select(q, 8))
		for range 3 {
			if got := fmt.Sprint(a.Select(q, 8)); got != first {
				t.Errorf("Select(%q) differs between calls", q)
			}
		}
		sel, sc := a.Select(q, 8), a.Scores(q)
		for i := range sel {
			if sel[i].Name != sc[i].Name {
				t.Errorf("Select(%q)[%d] = %s, Scores has %s", q, i, sel[i].Name, sc[i].Name)
			}
		}
	}
}

func TestWithoutExampleMatchesRebuild(t *testing.T) {
	r := synth.Registry(t, 100)
	c := New(r)
	for doc, m := range c.macros[:20] {
		for ex := range m.Examples {
			loo := c.withoutExample(doc, ex)
			// The same catalog built from a registry whose macro lacks that example.
			ms := r.List()
			ms[doc] = &runtime.Macro{Name: m.Name, Intent: m.Intent, Description: m.Description, Params: m.Params, Risk: m.Risk, Handler: synth.Noop,
				Examples: append(append([]runtime.Example(nil), m.Examples[:ex]...), m.Examples[ex+1:]...)}
			r2, err := runtime.NewRegistry(ms...)
			if err != nil {
				t.Fatal(err)
			}
			want := New(r2)
			q := m.Examples[ex].Say
			if g, w := fmt.Sprint(loo.Scores(q)), fmt.Sprint(want.Scores(q)); g != w {
				t.Fatalf("%s example %d: leave-one-out scores differ from a rebuild", m.Name, ex)
			}
		}
	}
}

// cl100kCounts are token counts from OpenAI's cl100k_base tokenizer (the
// base vocabulary of Qwen2.5 and Llama 3), measured once outside the test:
// the tools entries of the core macros exactly as ToolTokens marshals them,
// and a few free texts.
var (
	cl100kTools = map[string]int{
		"add_customer": 131, "capture_workflow_log": 140, "close_stale_issues": 245, "export_orders": 81,
		"find_customer": 73, "generate_release_notes": 161, "list_orders": 86, "login": 89,
		"suggest_reviewers": 133, "triage_issue": 150, "triage_pull_request": 154, "update_settings": 84,
	}
	cl100kTexts = []struct {
		text   string
		cl100k int
	}{
		{catalogFraming, 40},
		{"Please export every invoice that is still unpaid after thirty days, and email the list to finance.", 19},
		{"who should look at the failing build on the release branch?", 12},
		{"Schedule a 30-minute call with Priya and Marcus next Tuesday at 10am.", 18},
		{"func (c *Catalog) Len() int { return len(c.macros) }", 17},
		{"Größe ändern: 12 Einträge gefunden.", 12},
	}
)

func TestEstimateTokens(t *testing.T) {
	r, err := runtime.NewRegistry(synth.Core()...)
	if err != nil {
		t.Fatal(err)
	}
	var sumGot, sumWant int
	for _, tool := range r.Tools() {
		want := cl100kTools[tool.Name]
		got := ToolTokens(tool)
		sumGot, sumWant = sumGot+got, sumWant+want
		if d := float64(got-want) / float64(want); d > 0.15 || d < -0.15 {
			t.Errorf("ToolTokens(%s) = %d, cl100k %d (%+.0f%%)", tool.Name, got, want, 100*d)
		}
	}
	// Budgets add entries up, and the errors of single entries mostly cancel.
	if d := float64(sumGot-sumWant) / float64(sumWant); d > 0.03 || d < -0.03 {
		t.Errorf("ToolTokens over the core = %d, cl100k %d (%+.1f%%)", sumGot, sumWant, 100*d)
	}
	for _, tc := range cl100kTexts {
		got := EstimateTokens(tc.text)
		if d := float64(got-tc.cl100k) / float64(tc.cl100k); d > 0.25 || d < -0.25 {
			t.Errorf("EstimateTokens(%.40q) = %d, cl100k %d (%+.0f%%)", tc.text, got, tc.cl100k, 100*d)
		}
	}
	if EstimateTokens("") != 0 {
		t.Error("the empty string costs tokens")
	}
	if got := ToolTokens(runtime.Tool{Name: "x", InputSchema: json.RawMessage(`{not json`)}); got <= 0 {
		t.Errorf("ToolTokens of an invalid schema = %d", got)
	}
}

// TestCatalogFigures checks retrieval quality and prompt size, and logs the
// table in docs/catalog.md (go test ./runtime -run TestCatalogFigures -v
// -catalog.table adds Select ns/op).
func TestCatalogFigures(t *testing.T) {
	type row struct {
		label             string
		allTok, topTok    int
		r1, r4, r8, core8 float64
		bench8            float64
		ns                string
	}
	var tasks []benchTask
	if _, err := os.Stat(benchTasksDir); err == nil {
		tasks = loadBenchTasks(t)
	} else {
		t.Logf("no benchmark tasks at %s: bench recall not measured", benchTasksDir)
	}
	measure := func(label string, r *runtime.Registry, c *Catalog) row {
		costs := toolCosts(r)
		rec := recallLOO(c, []int{1, 4, 8})
		w := row{label: label, allTok: catalogTokens(costs, r.List()), r1: rec[0], r4: rec[1], r8: rec[2], bench8: -1, ns: "-"}
		w.core8 = coreRecallLOO(c, 8)
		// The most expensive top-8 over every example request.
		for _, m := range r.List() {
			for _, ex := range m.Examples {
				w.topTok = max(w.topTok, catalogTokens(costs, c.Select(ex.Say, DefaultK)))
			}
		}
		if tasks != nil {
			var missed []string
			w.bench8, missed = benchRecall(c, tasks, DefaultK)
			if r.Len() == 1000 && c.famScale != 0 {
				for _, m := range missed {
					t.Logf("bench miss: %s", m)
				}
			}
		}
		if *catalogTable {
			q := "close stale issues in acme/widgets older than 180 days"
			res := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					c.Select(q, DefaultK)
				}
			})
			w.ns = fmt.Sprintf("%d", res.NsPerOp())
		}
		return w
	}
	var rows []row
	for _, n := range []int{10, 100, 1000} {
		r := synth.Registry(t, n)
		c := New(r)
		w := measure(fmt.Sprint(n), r, c)
		rows = append(rows, w)
		if n != 1000 {
			continue
		}
		if w.r8 < looRecallBar {
			t.Errorf("recall@8 leave-one-out at %d macros = %.3f, want >= %.2f", n, w.r8, looRecallBar)
		}
		if w.topTok > 2000 {
			t.Errorf("top-8 catalog at %d macros costs %d tokens, want <= 2000", n, w.topTok)
		}
		if tasks != nil && w.bench8 < benchRecallBar {
			t.Errorf("recall@8 on %d benchmark requests = %.3f, want >= %.2f", len(tasks), w.bench8, benchRecallBar)
		}
		// Ablation: the same index without family scores.
		c.famScale = 0
		rows = append(rows, measure("1000, no families", r, c))
	}
	var sb strings.Builder
	sb.WriteString("\n| macros | tokens, all | tokens, top-8 (max) | recall@1 LOO | recall@4 LOO | recall@8 LOO | core recall@8 LOO | bench recall@8 | Select ns/op |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range rows {
		bench := "-"
		if w.bench8 >= 0 {
			bench = fmt.Sprintf("%.3f", w.bench8)
		}
		fmt.Fprintf(&sb, "| %s | %d | %d | %.3f | %.3f | %.3f | %.3f | %s | %s |\n", w.label, w.allTok, w.topTok, w.r1, w.r4, w.r8, w.core8, bench, w.ns)
	}
	t.Log(sb.String())
}

// Recall bars at 1,000 macros (docs/catalog.md explains how they were set).
const (
	looRecallBar   = 0.95
	benchRecallBar = 0.92
)

// TestCatalogScoresOrder checks Scores sorts by score, then name.
func TestCatalogScoresOrder(t *testing.T) {
	c := New(synth.Registry(t, 100))
	sc := c.Scores("list the open invoices")
	if !sort.SliceIsSorted(sc, func(i, j int) bool {
		return sc[i].Score > sc[j].Score || sc[i].Score == sc[j].Score && sc[i].Name < sc[j].Name
	}) {
		t.Error("Scores not sorted by score, then name")
	}
}

// TestSelectConcurrent checks that concurrent turns share one catalog safely
// (run with -race) and get what a lone caller gets.
func TestSelectConcurrent(t *testing.T) {
	c := New(synth.Registry(t, 100))
	want := make([]string, len(benchQueries))
	for i, q := range benchQueries {
		want[i] = fmt.Sprint(c.Select(q, DefaultK))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(benchQueries))
	for g := range 8 {
		wg.Go(func() {
			for i := range benchQueries {
				q := benchQueries[(i+g)%len(benchQueries)]
				if got := fmt.Sprint(c.Select(q, DefaultK)); got != want[(i+g)%len(benchQueries)] {
					errs <- q
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for q := range errs {
		t.Errorf("concurrent Select(%q) differs", q)
	}
}
