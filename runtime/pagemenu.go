package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// This file holds the page reads (vocab.Reads): the action menu and the
// annotated screenshot the engine offers a model, as steps whose output a
// spec binds, and the same reads for primitives that take the page.

// DefaultMenuLimit is how many entries an action menu lists when its step
// gives no limit; each entry costs a few in-page lookups (its proposed
// target must resolve to exactly it).
const DefaultMenuLimit = 50

// MenuEntry is one actionable element of the page, as action_menu binds it.
type MenuEntry struct {
	// Index is the element's number in the page's snapshot: the badge an
	// annotated screenshot taken of the same page draws on it.
	Index int    `json:"index"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	// Target is what a spec writes to reach the element, one that resolves
	// to exactly it and nothing else; nil when none does (a nameless
	// element with no test id and no unique selector) or when it would
	// spell a secret.
	Target *engine.Target `json:"target,omitempty"`
}

// MenuRequest is an action_menu step's options.
type MenuRequest struct {
	// Within lists only the elements inside the single element it
	// resolves to (nil: the whole page).
	Within *engine.Target
	// Limit caps the entries (0: DefaultMenuLimit).
	Limit int
}

// AnnotatedShot is what annotated_screenshot binds.
type AnnotatedShot struct {
	// Path is the PNG, beside the session's screenshots; "" when the call
	// has no session log to put it beside (the image is then only in the
	// step's evidence).
	Path   string `json:"path"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// Menu is the badged elements, in badge order: each entry's Index is
	// the number drawn on it.
	Menu []MenuEntry `json:"menu"`
}

// ActionMenu lists the visible actionable elements of the page (in tab
// o.Tab), each with the target a spec would write for it: an action_menu
// step. Names are the page's with the call's secrets redacted, and a
// target that would spell a secret is left out.
func (x *Exec) ActionMenu(ctx context.Context, path string, req MenuRequest, o StepOptions) ([]MenuEntry, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: string(vocab.ReadActionMenu), Status: "passed", Tab: tabName(o.Tab), Detail: map[string]any{}}
	if req.Within != nil {
		rec.Detail["within"] = x.redact(req.Within.String())
	}
	p, err := x.tabPage(ctx, o.Tab)
	if err != nil {
		return nil, x.tabFail(ctx, rec, err)
	}
	x.pageSecrets(p)
	var menu []MenuEntry
	var more bool
	err = poll(ctx, o, func(ctx context.Context) error {
		var err error
		menu, more, err = x.menu(ctx, p, req)
		return err
	})
	rec.Duration = time.Since(start)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	x.menuEvidence(&rec, menu, more)
	x.record(rec)
	return menu, nil
}

// menu reads the entries: the snapshot's visible elements that are not
// landmarks, inside req.Within, at most req.Limit; more reports a cut.
func (x *Exec) menu(ctx context.Context, p *engine.Page, req MenuRequest) (menu []MenuEntry, more bool, err error) {
	limit := req.Limit
	if limit <= 0 {
		limit = DefaultMenuLimit
	}
	snap, err := p.Snapshot(ctx, engine.SnapshotOptions{})
	if err != nil {
		return nil, false, err
	}
	var inside map[[2]string]bool
	if req.Within != nil {
		// Every element inside the container, by frame and selector (the
		// snapshot's own names for them).
		cands, err := p.Matches(ctx, engine.Target{CSS: "*", Within: req.Within})
		if err != nil {
			return nil, false, err
		}
		inside = make(map[[2]string]bool, len(cands))
		for _, c := range cands {
			inside[[2]string{c.Frame, c.Selector}] = true
		}
	}
	menu = []MenuEntry{}
	for i, e := range snap.Elements {
		if !e.Visible || e.Landmark || (inside != nil && !inside[[2]string{e.Frame, e.Selector}]) {
			continue
		}
		if len(menu) == limit {
			return menu, true, nil
		}
		menu = append(menu, x.entry(ctx, p, snap, i))
	}
	return menu, false, nil
}

// entry is snapshot element i as a menu entry, with its proposed target.
func (x *Exec) entry(ctx context.Context, p *engine.Page, snap *engine.Snapshot, i int) MenuEntry {
	e := snap.Elements[i]
	m := MenuEntry{Index: i, Role: e.Role, Name: x.redact(e.Name)}
	el, err := snap.Element(ctx, i)
	if err != nil {
		return m // detached since the snapshot: no target to propose
	}
	if t, _ := p.ProposeTarget(ctx, el, engine.Target{}); t != nil && !x.spells(*t) {
		m.Target = t
	}
	return m
}

// spells reports whether a target's text carries one of the call's
// secrets (a selector built from a value, say): such a target is left out
// rather than redacted, since a redacted one would not resolve.
func (x *Exec) spells(t engine.Target) bool {
	for _, s := range []string{t.Role, t.Name, t.Label, t.Text, t.Placeholder, t.TestID, t.CSS} {
		if s != "" && x.redact(s) != s {
			return true
		}
	}
	return false
}

// pageSecrets tells p every secret of the call, not only those it was
// told when it opened (a nested call's parameters), so its snapshot
// redacts and its screenshots mask them.
func (x *Exec) pageSecrets(p *engine.Page) {
	known := p.Secrets()
	for _, v := range x.allSecrets() {
		if !slices.Contains(known, v) {
			p.AddSecret(v)
			known = append(known, v)
		}
	}
}

// menuEvidence puts a menu on a step's record: how many entries, whether
// the limit cut it, and the entries as menu lines (names already redacted).
func (x *Exec) menuEvidence(rec *StepRecord, menu []MenuEntry, more bool) {
	lines := make([]string, 0, min(len(menu), maxMenuEvidence))
	for _, m := range menu[:min(len(menu), maxMenuEvidence)] {
		line := fmt.Sprintf("[%d] %s %q", m.Index, m.Role, Clip(m.Name, 80))
		if m.Target != nil {
			line += " " + x.redact(m.Target.String())
		}
		lines = append(lines, line)
	}
	rec.Detail["count"] = len(menu)
	rec.Detail["menu"] = lines
	if more {
		rec.Detail["truncated"] = true
	}
}

// maxMenuEvidence bounds the menu lines one step's record carries.
const maxMenuEvidence = 100

// AnnotatedScreenshot captures the viewport of tab o.Tab with a numbered
// badge on every visible actionable element and the call's secrets masked
// (engine.MaskedAnnotatedScreenshot): an annotated_screenshot step. The
// PNG is written beside the session's screenshots as
// <NN>-annotated-<name>.png; the value names it and lists the badged
// elements as menu entries (their numbers are the badges').
func (x *Exec) AnnotatedScreenshot(ctx context.Context, path, name string, o StepOptions) (AnnotatedShot, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: string(vocab.ReadAnnotatedScreenshot), Status: "passed", Tab: tabName(o.Tab), Detail: map[string]any{"name": name}}
	p, err := x.tabPage(ctx, o.Tab)
	if err != nil {
		return AnnotatedShot{}, x.tabFail(ctx, rec, err)
	}
	x.pageSecrets(p)
	cctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	a, err := p.MaskedAnnotatedScreenshot(cctx)
	if err != nil {
		rec.Duration = time.Since(start)
		return AnnotatedShot{}, x.fail(ctx, rec, err)
	}
	out := AnnotatedShot{Width: a.Width, Height: a.Height, Menu: make([]MenuEntry, 0, len(a.Items))}
	for _, it := range a.Items {
		out.Menu = append(out.Menu, x.entry(cctx, p, a.Snapshot, it.Index))
	}
	if f := x.root().files; f != nil {
		rel, err := f.dir()
		if err == nil {
			file := filepath.Join(rel, fmt.Sprintf("%02d-annotated-%s.png", f.next(), sanitizeShotName(name)))
			if err = writeShot(filepath.Join(f.base, file), a.PNG); err == nil {
				out.Path = filepath.Join(f.base, file)
				rec.Shots = &sessionlog.Shots{After: filepath.ToSlash(file)}
			}
		}
		if err != nil {
			rec.Duration = time.Since(start)
			return AnnotatedShot{}, x.fail(ctx, rec, fmt.Errorf("write the annotated screenshot: %w", err))
		}
	} else {
		rec.Detail["png"] = a.PNG
	}
	rec.Detail["bytes"] = len(a.PNG)
	rec.Detail["width"], rec.Detail["height"] = a.Width, a.Height
	x.menuEvidence(&rec, out.Menu, false)
	rec.Duration = time.Since(start)
	x.record(rec)
	return out, nil
}
