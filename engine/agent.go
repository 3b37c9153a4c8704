package engine

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-rod/rod"
)

//go:embed js/*.js
var jsFS embed.FS

// agentFn names a function of the in-page agent (window.__mk, built from
// js/): call, callObject and snapCallJSON take one, never a string, and
// TestAgentFunctions proves each constant is a function in the agent.
type agentFn string

// The in-page functions the engine calls, by the js/ file that defines them
// (TestAgentFunctions checks the file).
const (
	// js/16_refs.js
	mkDeref    agentFn = "deref"
	mkInfo     agentFn = "info"
	mkDescribe agentFn = "describe"
	// js/20_snapshot.js
	mkSnapshot agentFn = "snapshot"
	// js/21_annotate.js
	mkAnnotate   agentFn = "annotate"
	mkUnannotate agentFn = "unannotate"
	// js/22_mask.js
	mkMaskBoxes agentFn = "maskBoxes"
	// js/32_resolve.js
	mkResolve        agentFn = "resolve"
	mkCount          agentFn = "count"
	mkMatches        agentFn = "matches"
	mkElementInfoRef agentFn = "elementInfoRef"
	// js/33_fingerprint.js
	mkRefind agentFn = "refind"
	// js/40_act.js
	mkActionable        agentFn = "actionable"
	mkActGuardDone      agentFn = "actGuardDone"
	mkActGuardSettle    agentFn = "actGuardSettle"
	mkActSettle         agentFn = "actSettle"
	mkActDeref          agentFn = "actDeref"
	mkActDomHover       agentFn = "actDomHover"
	mkActDomClick       agentFn = "actDomClick"
	mkActFocused        agentFn = "actFocused"
	mkActFocus          agentFn = "actFocus"
	mkActFillPrep       agentFn = "actFillPrep"
	mkSetValue          agentFn = "setValue"
	mkActReadValue      agentFn = "actReadValue"
	mkActScrollBy       agentFn = "actScrollBy"
	mkActScrollPos      agentFn = "actScrollPos"
	mkActWaitScroll     agentFn = "actWaitScroll"
	mkActScrollIntoView agentFn = "actScrollIntoView"
	// js/41_select.js
	mkActSelectNative  agentFn = "actSelectNative"
	mkActCombo         agentFn = "actCombo"
	mkActWaitListbox   agentFn = "actWaitListbox"
	mkActFindOption    agentFn = "actFindOption"
	mkActListboxState  agentFn = "actListboxState"
	mkActWaitSelection agentFn = "actWaitSelection"
	// js/42_check.js
	mkActChecked     agentFn = "actChecked"
	mkActWaitChecked agentFn = "actWaitChecked"
	// js/43_upload.js
	mkActFileInput agentFn = "actFileInput"
	mkActFiles     agentFn = "actFiles"
	// js/44_press.js
	mkActDomKey agentFn = "actDomKey"
	// js/45_type.js
	mkActTypeTarget agentFn = "actTypeTarget"
	mkActTypePrep   agentFn = "actTypePrep"
	mkActTypeRead   agentFn = "actTypeRead"
	// js/46_path.js
	mkActPathOption agentFn = "actPathOption"
	mkActPathShown  agentFn = "actPathShown"
	// js/47_scrollprobe.js
	mkScrollProbe agentFn = "scrollProbe"
	// js/56_wait.js
	mkWaitChecks     agentFn = "waitChecks"
	mkVerifyCancel   agentFn = "verifyCancel"
	mkVerifyBaseline agentFn = "verifyBaseline"
	mkWaitReady      agentFn = "waitReady"
	mkNextFrame      agentFn = "nextFrame"
	// js/60_extract.js
	mkExtract     agentFn = "extract"
	mkExtractRows agentFn = "extractRows"
	// js/70_run.js
	mkReactionMark   agentFn = "reactionMark"
	mkReactionSince  agentFn = "reactionSince"
	mkDismissOverlay agentFn = "dismissOverlay"
)

// agentJS is the in-page agent: every file in js/ concatenated in name order.
// It defines window.__mk once per document. The files whose names share a
// first digit (10_scan.js to 16_refs.js) are one family, wrapped in one
// block: a top-level declaration in a file is visible to its family only.
var agentJS = func() string {
	names, err := fs.Glob(jsFS, "js/*.js")
	if err != nil {
		panic(err) // the embed pattern is a constant; this cannot fail at run time
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("(() => {\nif (window.__mk) return;\nconst mk = window.__mk = {};\n")
	family := byte(0)
	for _, n := range names {
		if f := path.Base(n)[0]; f != family {
			if family != 0 {
				b.WriteString("}\n")
			}
			b.WriteString("{\n")
			family = f
		}
		src, _ := jsFS.ReadFile(n)
		fmt.Fprintf(&b, "// ---- %s\n", n)
		b.Write(src)
		b.WriteString("\n")
	}
	if family != 0 {
		b.WriteString("}\n")
	}
	b.WriteString("})();\n")
	return b.String()
}()

const missingAgent = "__mk_missing__"

// ensureAgent installs the in-page agent into the current document if a
// navigation raced EvalOnNewDocument (about:blank, a page opened by the site).
func (p *Page) ensureAgent(ctx context.Context) error {
	_, err := p.rod.Context(ctx).Evaluate(rod.Eval("() => {\n" + agentJS + "\n}"))
	if err != nil {
		return &Error{Code: CodeBrowser, Msg: "install agent", Err: err}
	}
	return nil
}

// call invokes window.__mk[fn](args...) in the page's main frame, awaiting a
// returned promise, and decodes the JSON result into out (when non-nil).
func (p *Page) call(ctx context.Context, out any, fn agentFn, args ...any) error {
	js := `function(fn, ...args) { return window.__mk ? window.__mk[fn](...args) : "` + missingAgent + `" }`
	allArgs := append([]any{string(fn)}, args...)
	for attempt := 0; ; attempt++ {
		res, err := p.rod.Context(ctx).Evaluate(rod.Eval(js, allArgs...).ByPromise())
		if err != nil {
			if ctx.Err() != nil {
				return &Error{Code: CodeTimeout, Msg: "in-page " + string(fn), Err: ctx.Err()}
			}
			return &Error{Code: CodeBrowser, Msg: "in-page " + string(fn), Err: err}
		}
		if res.Value.Str() == missingAgent && attempt == 0 {
			if err := p.ensureAgent(ctx); err != nil {
				return err
			}
			continue
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal([]byte(res.Value.JSON("", "")), out); err != nil {
			return &Error{Code: CodeBrowser, Msg: "decode in-page " + string(fn) + " result", Err: err}
		}
		return nil
	}
}

// callObject is call for functions that return a DOM node: it returns a rod
// element handle, or nil when the function returned null.
func (p *Page) callObject(ctx context.Context, fn agentFn, args ...any) (*rod.Element, error) {
	js := `function(fn, ...args) { return window.__mk ? window.__mk[fn](...args) : null }`
	res, err := p.rod.Context(ctx).Evaluate(rod.Eval(js, append([]any{string(fn)}, args...)...).ByObject())
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "in-page " + string(fn), Err: err}
	}
	if res.ObjectID == "" {
		return nil, nil
	}
	el, err := p.rod.Context(ctx).ElementFromObject(res)
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "element handle", Err: err}
	}
	return el, nil
}

// evalJSON evaluates a JS function expression in the main frame and decodes
// its JSON result into out.
func (p *Page) evalJSON(ctx context.Context, out any, js string, args ...any) error {
	res, err := p.rod.Context(ctx).Evaluate(rod.Eval(js, args...).ByPromise())
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Code: CodeTimeout, Msg: "evaluate", Err: ctx.Err()}
		}
		return &Error{Code: CodeBrowser, Msg: "evaluate", Err: err}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), out); err != nil {
		return &Error{Code: CodeBrowser, Msg: "decode evaluate result", Err: err}
	}
	return nil
}

// snapCallJSON is p.call for large results: the page returns one
// JSON.stringify'd string, which CDP carries and Go decodes far faster than
// a by-value object tree of thousands of elements.
func (p *Page) snapCallJSON(ctx context.Context, out any, fn agentFn, args ...any) error {
	js := `function(fn, ...args) { return window.__mk ? JSON.stringify(window.__mk[fn](...args)) : "` + missingAgent + `" }`
	all := append([]any{string(fn)}, args...)
	for attempt := 0; ; attempt++ {
		res, err := p.rod.Context(ctx).Evaluate(rod.Eval(js, all...))
		if err != nil {
			if ctx.Err() != nil {
				return &Error{Code: CodeTimeout, Msg: "in-page " + string(fn), Err: ctx.Err()}
			}
			return &Error{Code: CodeBrowser, Msg: "in-page " + string(fn), Err: err}
		}
		str := res.Value.Str()
		if str == missingAgent && attempt == 0 {
			if err := p.ensureAgent(ctx); err != nil {
				return err
			}
			continue
		}
		if err := json.Unmarshal([]byte(str), out); err != nil {
			return &Error{Code: CodeBrowser, Msg: "decode in-page " + string(fn) + " result", Err: err}
		}
		return nil
	}
}

// waitMs converts a wait to milliseconds for in-page waits, bounded by
// ctx's deadline (leaving a little time to report back).
func waitMs(ctx context.Context, d time.Duration) int {
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl) - 50*time.Millisecond
		if left < d {
			d = left
		}
	}
	if d < 0 {
		d = 0
	}
	return int(d / time.Millisecond)
}
