package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/generated"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
)

// benchDir is the shared benchmark data: shared/data/macrokit-bench in the
// nearest directory above the package that has it (../../../ from the main
// checkout, one more level from a worktree under wt/).
var benchDir = findBench()

func findBench() string {
	dir, err := filepath.Abs(".")
	if err != nil {
		return "../../../shared/data/macrokit-bench"
	}
	for {
		p := filepath.Join(dir, "shared", "data", "macrokit-bench")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "../../../shared/data/macrokit-bench"
		}
		dir = up
	}
}

func TestScore(t *testing.T) {
	task := Task{ID: "T", Expected: Expectation{Tool: "a", Args: map[string]any{"n": json.Number("5"), "s": "x"}},
		Alternative: &Expectation{Tool: "b", Args: map[string]any{"n": json.Number("5")}}}
	none := Task{ID: "N"}
	cases := []struct {
		name   string
		task   Task
		routed string
		args   string
		want   Points
	}{
		{"full", task, "a", `{"n":5,"s":"x","extra":1}`, Points{1, 1, VerdictFull}},
		{"number by value", task, "a", `{"n":5.0,"s":"x"}`, Points{1, 1, VerdictFull}},
		{"string is not a number", task, "a", `{"n":"5","s":"x"}`, Points{1, 0, VerdictToolOnly}},
		{"missing key", task, "a", `{"n":5}`, Points{1, 0, VerdictToolOnly}},
		{"alternative", task, "b", `{"n":5}`, Points{0.5, 1, VerdictHalf}},
		{"alternative bad args", task, "b", `{"n":6}`, Points{0.5, 0, VerdictHalf}},
		{"wrong tool", task, "c", `{"n":5,"s":"x"}`, Points{0, 0, VerdictMiss}},
		{"nothing", task, "", ``, Points{0, 0, VerdictMiss}},
		{"no tool expected, none routed", none, "", ``, Points{1, 1, VerdictFull}},
		{"no tool expected, one routed", none, "a", `{}`, Points{0, 0, VerdictMiss}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Score(tc.task, tc.routed, json.RawMessage(tc.args)); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// mustAsk are the benchmark's unordered two-intent tasks. AM014 ("triage
// PR 5 ..., then assign reviewers, then close stale issues") is ordered:
// the router runs its first step when the model picks it, and asks
// otherwise.
var mustAsk = map[string]bool{"SR010": true, "SR011": true}

// TestReplayUpstreamRuns re-scores the four recorded upstream runs through
// today's parser, detector, salvage and validation: the score must never
// be lower than upstream's, and salvage must never run a wrong act or
// dangerous macro.
func TestReplayUpstreamRuns(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join(benchDir, "runs", "*.jsonl"))
	taskFiles, _ := filepath.Glob(filepath.Join(benchDir, "tasks", "*.jsonl"))
	if len(runs) == 0 || len(taskFiles) == 0 {
		if _, err := os.Stat(benchDir); os.IsNotExist(err) {
			t.Skip("benchmark data not present")
		}
		t.Fatal("no runs or tasks in the benchmark data")
	}
	tasks, err := LoadTasks(taskFiles...)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 100 {
		t.Fatalf("%d tasks, want 100", len(tasks))
	}
	reg, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range runs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if !IsUpstreamRun(path) {
				t.Fatal("not recognised as an upstream run")
			}
			run, err := LoadUpstreamRun(path)
			if err != nil {
				t.Fatal(err)
			}
			r := &route.Router{Registry: reg, Model: run.Model(), History: -1, Eval: route.EvalOptions{DryRun: true, NoSummary: true}}
			rep, err := Run(context.Background(), r, tasks, Options{Upstream: run})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Points < run.Score {
				t.Errorf("score %.1f points, lower than upstream's %.1f", rep.Points, run.Score)
			}
			if n := rep.WrongBySalvage[runtime.RiskAct] + rep.WrongBySalvage[runtime.RiskDangerous]; n != 0 {
				t.Errorf("%d wrong act/dangerous dispatches by salvage", n)
			}
			for _, res := range rep.Results {
				if res.Decision == route.DecisionSalvaged {
					if m, _ := reg.Lookup(res.Dispatched); m.Risk != runtime.RiskRead {
						t.Errorf("%s: salvaged a %s macro (%s) without approval", res.Task.ID, m.Risk, m.Name)
					}
				}
				if res.Error != "" {
					t.Errorf("%s: %s", res.Task.ID, res.Error)
				}
				// A request with two intents gets a question, never a
				// dispatch (issue 16 part 6): SR010 and SR011 were wrong
				// triage_pull_request (act) dispatches on two runs.
				if mustAsk[res.Task.ID] && (res.Decision != route.DecisionAsked || res.Wrong || res.Dispatched != "") {
					t.Errorf("%s: decision %s, dispatched %q, wrong %v; want a question", res.Task.ID, res.Decision, res.Dispatched, res.Wrong)
				}
				if res.Decision == route.DecisionAsked && !mustAsk[res.Task.ID] && res.Task.ID != "AM014" {
					t.Errorf("%s: asked on a single-intent request (%q)", res.Task.ID, res.Reply)
				}
				// The grounding check must never stop a call the model got
				// right: the task's expected macro with its arguments.
				if slices.Contains(res.BailOuts, string(route.BailUngroundedArguments)) && res.Score.Verdict == "full" {
					t.Errorf("%s: grounding stopped a right call: %s %s", res.Task.ID, res.Routed, res.Args)
				}
				// The consequential-argument rule must never reset a value the
				// task expects: a request that asks must be heard.
				for _, p := range res.Resets {
					if res.Routed == res.Task.Expected.Tool {
						if _, expected := res.Task.Expected.Args[p]; expected {
							t.Errorf("%s: reset %s although the task expects it: %q", res.Task.ID, p, res.Task.Prompt)
						}
					}
				}
			}
			t.Logf("%s: ours %.2f%% (dispatched-only %.2f%%), upstream %.2f%%, bail-outs %v, salvaged %d, asked %d, wrong dispatches %d %v, consequential resets %d %v, unasked ran %d",
				run.ModelID, rep.Percent, rep.Strict, rep.Upstream, rep.BailOuts, rep.Salvaged, rep.Asked, rep.WrongDispatches, rep.WrongByRisk,
				rep.ConsequentialResets, rep.ResetsByParam, rep.UnaskedRan)
		})
	}
}

func TestLoadTasksErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	_ = os.WriteFile(p, []byte("{\"id\":\"A\",\"prompt\":\"x\",\"expected\":{\"tool\":null}}\n\nnot json\n{\"id\":\"A\",\"prompt\":\"y\"}\n{\"prompt\":\"z\"}\n"), 0o644)
	_, err := LoadTasks(p)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"t.jsonl:3:", "t.jsonl:4: task A already defined at", "t.jsonl:5: task without an id"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestStoriesAndChanges: the with-confirmation story never scores below
// the autonomous one and confirms only act calls; a report compared with
// itself has no changes, and a task whose verdict moved is listed.
func TestStoriesAndChanges(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join(benchDir, "runs", "*.jsonl"))
	taskFiles, _ := filepath.Glob(filepath.Join(benchDir, "tasks", "*.jsonl"))
	if len(runs) == 0 || len(taskFiles) == 0 {
		t.Skip("benchmark data not present")
	}
	tasks, err := LoadTasks(taskFiles...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range runs {
		run, err := LoadUpstreamRun(path)
		if err != nil {
			t.Fatal(err)
		}
		r := &route.Router{Registry: reg, Model: run.Model(), History: -1, Eval: route.EvalOptions{DryRun: true, NoSummary: true}}
		rep, err := RunStories(context.Background(), r, tasks, Options{Upstream: run})
		if err != nil {
			t.Fatal(err)
		}
		w := rep.WithConfirmation
		if w == nil || w.Percent < rep.Percent || w.WrongByRisk[runtime.RiskDangerous] > rep.WrongByRisk[runtime.RiskDangerous] {
			t.Errorf("%s: with confirmation %+v against autonomous %.2f%%", run.ModelID, w, rep.Percent)
		}
		if r.SalvageApprover != nil {
			t.Errorf("%s: RunStories left its approver on the router", run.ModelID)
		}
		if ch := Changes(rep, rep); len(ch) != 0 {
			t.Errorf("%s: a report differs from itself: %+v", run.ModelID, ch)
		}
		prev := *rep
		prev.Results = append([]TaskResult(nil), rep.Results...)
		prev.Results[0].Score = Points{Verdict: VerdictMiss}
		ch := Changes(&prev, rep)
		if len(ch) != 1 || ch[0].ID != rep.Results[0].Task.ID || ch[0].Before != VerdictMiss {
			t.Errorf("%s: changes %+v, want one for %s", run.ModelID, ch, rep.Results[0].Task.ID)
		}
		t.Logf("%s: autonomous %.2f%%, with confirmation %.2f%% (%d confirmed), wrong by risk %v / %v", run.ModelID, rep.Percent, w.Percent, w.Confirmed, rep.WrongByRisk, w.WrongByRisk)
	}
}

// TestExamplesAskForConsequentialValues keeps the specs' examples and
// their asked_by phrases in step: an example that sets a consequential
// argument says so in its own words, or the router would reset the very
// call the example teaches.
func TestExamplesAskForConsequentialValues(t *testing.T) {
	reg, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, m := range reg.List() {
		if len(m.Consequential) == 0 {
			continue
		}
		for _, ex := range m.Examples {
			valid, cerr := m.Validate(ex.Args)
			if cerr != nil {
				t.Errorf("%s: example %q: %v", m.Name, ex.Say, cerr)
				continue
			}
			checked++
			for _, u := range m.Unasked(valid.JSON(), ex.Say) {
				t.Errorf("%s: example %q sets %s=%s without asking for it", m.Name, ex.Say, u.Param, u.Value)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no macro with consequential params has examples")
	}
}
