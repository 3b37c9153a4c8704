package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
)

// snapshot returns the engine's action menu with a replayable target on
// every line instead of the menu number, and the page signals.
func (s *Session) snapshot(ctx context.Context, x *runtime.Exec, p *engine.Page) (map[string]any, error) {
	start := time.Now()
	rec := runtime.StepRecord{Path: Snapshot, Kind: "snapshot", Status: "passed"}
	snap, err := p.Snapshot(ctx, engine.SnapshotOptions{})
	rec.Duration = time.Since(start)
	if err != nil {
		return nil, x.FailStep(ctx, rec, err)
	}
	menu, shown, more := Menu(snap)
	rec.Detail = map[string]any{"elements": len(snap.Elements), "shown": shown}
	x.Record(rec)
	res := map[string]any{"url": snap.URL, "title": snap.Title, "menu": menu}
	if more > 0 {
		res["more"] = more
	}
	return res, nil
}

// Menu renders a snapshot for a model: the engine's action menu with
// each line's number replaced by a target the page tools accept, then the
// page signals, bounded. It returns the text, how many elements it shows,
// and how many it left out.
func Menu(s *engine.Snapshot) (menu string, shown, more int) {
	targets := menuTargets(s)
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(s.Menu(engine.MenuOptions{NoSignals: true}), "\n"), "\n")
	var signals []string
	for _, d := range s.Signals.Dialogs {
		kind := d.Role
		if d.Modal {
			kind = "modal " + kind
		}
		signals = append(signals, fmt.Sprintf("! open %s %q", kind, runtime.Clip(d.Name, 80)))
	}
	for _, v := range s.Signals.Validation {
		signals = append(signals, fmt.Sprintf("! invalid %q: %s", runtime.Clip(v.Name, 80), runtime.Clip(v.Message, 160)))
	}
	for _, l := range s.Signals.Live {
		role := l.Role
		if role == "" {
			role = "live"
		}
		if t := strings.Join(strings.Fields(l.Text), " "); t != "" {
			signals = append(signals, fmt.Sprintf("! %s: %q", role, runtime.Clip(t, 160)))
		}
	}
	budget := maxMenuBytes
	for _, sl := range signals {
		budget -= len(sl) + 1
	}
	for _, line := range lines {
		var i int
		var rest string
		if n, _ := fmt.Sscanf(line, "[%d]", &i); n != 1 || i < 0 || i >= len(s.Elements) {
			continue
		}
		if j := strings.Index(line, "] "); j >= 0 {
			rest = line[j+2:]
		}
		t, _ := json.Marshal(targets[i])
		out := rest + " → " + string(t) + "\n"
		if shown >= maxMenuLines || b.Len()+len(out) > budget {
			more++
			continue
		}
		b.WriteString(out)
		shown++
	}
	if more > 0 {
		fmt.Fprintf(&b, "… %d more element(s) not shown; use page_extract with a narrower target\n", more)
	}
	for _, sl := range signals {
		b.WriteString(sl + "\n")
	}
	return b.String(), shown, more
}

// menuTargets picks a replayable target per snapshot element: role and
// accessible name (with nth among the visible twins), or the element's
// stable CSS selector when it has no usable name.
func menuTargets(s *engine.Snapshot) []engine.Target {
	type key struct{ role, name string }
	count := map[key]int{}
	for _, e := range s.Elements {
		if e.Visible {
			count[key{e.Role, e.Name}]++
		}
	}
	seen := map[key]int{}
	out := make([]engine.Target, len(s.Elements))
	for i, e := range s.Elements {
		k := key{e.Role, e.Name}
		nth := seen[k]
		if e.Visible {
			seen[k]++
		}
		switch {
		case e.Role == "" || strings.TrimSpace(e.Name) == "" || len([]rune(e.Name)) > 100:
			out[i] = engine.Target{CSS: e.Selector}
		case count[k] > 1 && e.Visible:
			n := nth
			out[i] = engine.Target{Role: e.Role, Name: e.Name, Nth: &n}
		default:
			out[i] = engine.Target{Role: e.Role, Name: e.Name}
		}
	}
	return out
}
