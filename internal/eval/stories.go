package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
)

// RunStories scores the tasks twice: autonomously (nothing a person
// confirms: a call recovered from the model's text runs only for a read
// macro) and with confirmation (a recovered call to an act macro counted
// as the call it becomes once the user says yes; dangerous ones still
// need their own approval, which an eval never gives). The second is the
// report's WithConfirmation.
func RunStories(ctx context.Context, r *route.Router, tasks []Task, opts Options) (*Report, error) {
	auto, err := Run(ctx, r, tasks, opts)
	if err != nil {
		return nil, err
	}
	saved := r.SalvageApprover
	defer func() { r.SalvageApprover = saved }()
	confirmed := 0
	r.SalvageApprover = func(ctx context.Context, req runtime.ApprovalRequest) (bool, error) {
		m, ok := r.Registry.Lookup(req.Macro)
		if !ok || m.Risk != runtime.RiskAct {
			return false, nil
		}
		confirmed++
		return true, nil
	}
	opts.Progress = nil
	with, err := Run(ctx, r, tasks, opts)
	if err != nil {
		return nil, err
	}
	with.Confirmed = confirmed
	with.Results = nil // the tasks are the autonomous report's; Changes says which differ
	auto.WithConfirmation = with
	return auto, nil
}

// TaskChange is a task whose score differs between two reports.
type TaskChange struct {
	ID       string  `json:"id"`
	Before   string  `json:"before"` // verdict
	After    string  `json:"after"`
	Delta    float64 `json:"delta"` // points
	Routed   string  `json:"routed,omitempty"`
	Decision string  `json:"decision,omitempty"`
}

// Changes lists the tasks whose score or wrong-dispatch mark differs from
// a previous build's report (per-task diffs: a change that helps one
// model and hurts another shows), in task order.
func Changes(prev, cur *Report) []TaskChange {
	before := map[string]TaskResult{}
	for _, r := range prev.Results {
		before[r.Task.ID] = r
	}
	var out []TaskChange
	for _, r := range cur.Results {
		p, ok := before[r.Task.ID]
		if !ok || (p.Score.Total() == r.Score.Total() && p.Wrong == r.Wrong) {
			continue
		}
		out = append(out, TaskChange{ID: r.Task.ID, Before: verdictOf(p), After: verdictOf(r), Delta: r.Score.Total() - p.Score.Total(),
			Routed: orNone(r.Routed), Decision: string(r.Decision)})
	}
	return out
}

func verdictOf(r TaskResult) string {
	if r.Wrong {
		return r.Score.Verdict + " (wrong " + string(r.WrongRisk) + " dispatch)"
	}
	return r.Score.Verdict
}

// ReadReport reads a report written by `eval --format json`.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: not an eval report: %v", path, err)
	}
	if len(rep.Results) == 0 {
		return nil, fmt.Errorf("%s: the report has no per-task results", path)
	}
	return &rep, nil
}
