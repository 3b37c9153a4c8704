package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// SelectPath picks a path in a cascader (antd Cascader, Element Plus
// el-cascader, nested menus and trees): it clicks the element to open it
// (unless it is already expanded), then, level by level, waits for a
// visible option with that level's name and clicks it. An option is an
// element with role option, menuitem, menuitemcheckbox, menuitemradio or
// treeitem whose accessible name, title or own visible text is the name
// (exact after whitespace normalisation, else case-insensitive); when no
// such role matches, an innermost visible element with exactly that text,
// outside the control, is taken. Among several, the last in document order
// wins: a level's menu comes after the menu it opened from, and popups after
// the page. The levels already picked are never taken again.
//
// Read-back: the control must then display the last level (an input's
// value, or the text shown beside it, as antd does: "Zhejiang / Hangzhou /
// West Lake"), case-insensitively, waiting briefly for it; a mismatch is
// CodeValueNotApplied. ActResult.SelectedBefore/After hold what the
// control displayed.
func (p *Page) SelectPath(ctx context.Context, el *Element, path []string, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, vocab.ActSelect, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	if len(path) == 0 {
		return a.end(errorf(CodeInvalid, "a path needs at least one level"))
	}
	w := a.watch(ctx)
	defer w.stop()
	before, err := p.pathShown(ctx, el.Ref, "", 0)
	if err != nil {
		return a.end(err)
	}
	if !before.Attached {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	a.res.SelectedBefore = []string{before.Shown}
	if before.Expanded {
		a.res.note("already expanded: not clicked to open")
	} else if err := a.clickRef(ctx, el.Ref, opt.Channel, false); err != nil {
		return a.end(err)
	}
	picked := make([]int, 0, len(path))
	for i, name := range path {
		var o struct {
			Ref    int        `json:"ref"`
			Option *Candidate `json:"option"`
			Popup  *Candidate `json:"popup"`
			Near   []string   `json:"near"`
		}
		if err := p.call(ctx, &o, mkActPathOption, name, picked, el.Ref, waitMs(ctx, DefaultActWait)); err != nil {
			return a.end(err)
		}
		if o.Ref == 0 {
			return a.end(errorf(CodeNotFound, "path level %d of %d: no visible option %q (visible options: %s)", i+1, len(path), name, quoteList(o.Near)))
		}
		if err := a.clickRef(ctx, o.Ref, opt.Channel, false); err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Msg = fmt.Sprintf("path level %d %q: %s", i+1, name, e.Msg)
			}
			return a.end(err)
		}
		picked = append(picked, o.Ref)
		where := "the page"
		if o.Popup != nil {
			where = describeCand(o.Popup)
		}
		a.res.note("level %d: %s in %s", i+1, describeCand(o.Option), where)
	}
	last := path[len(path)-1]
	after, err := p.pathShown(ctx, el.Ref, last, waitMs(ctx, actVerifyWait))
	if err != nil {
		return a.end(err)
	}
	if !after.Attached {
		// The control re-rendered: read the re-found element.
		nel, rerr := p.refindElement(ctx, el)
		if rerr != nil {
			return a.end(&Error{Code: CodeValueNotApplied, Msg: "the control was replaced and could not be re-found to read what it displays", Err: rerr})
		}
		a.res.Refound = true
		if after, err = p.pathShown(ctx, nel.Ref, last, waitMs(ctx, actVerifyWait)); err != nil {
			return a.end(err)
		}
	}
	a.res.SelectedAfter = []string{after.Shown}
	if !strings.Contains(strings.ToLower(after.Shown), strings.ToLower(strings.Join(strings.Fields(last), " "))) {
		return a.end(errorf(CodeValueNotApplied, "path %s picked, but the control displays %q, not %q", strings.Join(path, " / "), after.Shown, last))
	}
	return a.end(w.settle(ctx, a.res, false, opt.NoWaitAfter))
}

// shown is what a control displays (js/46_path.js mk.actPathShown).
type shown struct {
	Attached bool   `json:"attached"`
	Shown    string `json:"shown"`
	Expanded bool   `json:"expanded"`
}

func (p *Page) pathShown(ctx context.Context, ref int, want string, wait int) (shown, error) {
	var s shown
	err := p.call(ctx, &s, mkActPathShown, ref, want, wait)
	return s, err
}

func quoteList(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
