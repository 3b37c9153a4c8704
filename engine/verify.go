package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Baseline is the page state captured just before an action, against which
// the action's post-conditions are judged: list counts for list_count_delta
// and the request mark for request_succeeded ("requests fired during the
// action" are those with Seq > Mark).
type Baseline struct {
	// At is when the baseline was captured.
	At time.Time `json:"at"`
	// Mark is Page.RequestMark() at capture time.
	Mark int64 `json:"mark"`
	// URL and Title of the document before the action.
	URL   string `json:"url"`
	Title string `json:"title"`
	// Document identifies the document (the in-page agent's id for it); a
	// check that settles on another document says so in its evidence
	// ("new_document": true).
	Document string `json:"document,omitempty"`
	// Counts holds, per list_count_delta target (keyed by Target.String()),
	// how many elements matched it before the action.
	Counts map[string]int `json:"counts,omitempty"`
	// CountErrors holds, per target, why it could not be counted; the
	// corresponding list_count_delta check is then unverifiable.
	CountErrors map[string]string `json:"count_errors,omitempty"`
}

// Count returns the baseline count recorded for t.
func (b *Baseline) Count(t Target) (int, bool) {
	if b == nil || b.Counts == nil {
		return 0, false
	}
	n, ok := b.Counts[t.String()]
	return n, ok
}

// Baseline captures the state that conds will be judged against; call it
// immediately before the action. It counts the matches of every
// list_count_delta target (via Page.Count), records the URL and title, and
// takes the request mark last, so that requests the action fires are the
// ones after it. A target that cannot be counted does not fail the baseline:
// it is recorded in CountErrors and its check comes out unverifiable. The
// error is non-nil only when the page itself cannot be read.
func (p *Page) Baseline(ctx context.Context, conds []Condition) (*Baseline, error) {
	b := &Baseline{}
	for _, c := range conds {
		if c.Kind != vocab.CondListCountDelta || c.Target == nil {
			continue
		}
		key := c.Target.String()
		if _, done := b.Counts[key]; done {
			continue
		}
		n, err := p.Count(ctx, *c.Target)
		if err != nil {
			if ctx.Err() != nil {
				return nil, &Error{Code: CodeTimeout, Msg: "baseline: count " + key, Err: ctx.Err()}
			}
			if b.CountErrors == nil {
				b.CountErrors = map[string]string{}
			}
			b.CountErrors[key] = err.Error()
			continue
		}
		if b.Counts == nil {
			b.Counts = map[string]int{}
		}
		b.Counts[key] = n
	}
	var info struct {
		URL   string `json:"url"`
		Title string `json:"title"`
		Doc   string `json:"doc"`
	}
	var err error
	for attempt := 0; attempt < maxRearms; attempt++ {
		if err = p.call(ctx, &info, mkVerifyBaseline); err == nil || !documentGone(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	b.URL, b.Title, b.Document = info.URL, info.Title, info.Doc
	b.Mark = p.RequestMark()
	b.At = time.Now()
	return b, nil
}

// AllPassed reports whether every check passed. Failed and unverifiable
// checks both make it false. An empty list is vacuously true: a step with no
// post-conditions claims nothing, so nothing can contradict it (callers that
// require evidence must check len(results) themselves).
func AllPassed(results []CheckResult) bool {
	for _, r := range results {
		if r.Status != Passed {
			return false
		}
	}
	return true
}

// Verify evaluates conds against the live page and returns one result per
// condition, in order. Each check waits up to its own timeout
// (Condition.Timeout, default 4s) for its condition to hold and settles
// passed the moment it is observed to hold (later changes do not undo it:
// checks are judged independently, as if run concurrently); a check still
// not holding at its deadline settles failed with the last evidence.
//
// Waiting is event driven, never a sleep: all in-page checks share one
// in-page wait that re-evaluates on DOM mutations (shadow roots and
// same-origin iframes included), on input, change, focus, load, toggle and
// animation/transition-end events, on navigation-entry changes (pushState)
// and on the frame after each mutation batch; request checks wake on the
// page's network events. If the document is replaced mid-wait (a form
// submit, a redirect) the in-page wait is re-armed on the new document with
// the time that is left, and results that settled there carry
// "new_document": true. A value changed by script with no event and no DOM
// mutation is only seen by the final evaluation at the deadline.
//
// The kinds:
//   - url_matches, title_matches: Pattern is a JavaScript regular
//     expression, unanchored, tested against the top document's
//     location.href / document.title.
//   - text_present, text_absent: Text is a substring (whitespace-normalised,
//     case-sensitive) or a /regex/flags literal, tested against the rendered
//     (visible) text of the page, or of the Target's matches (all of them;
//     the one nth/last picks). Open shadow roots and same-origin iframes
//     count; input values do not. text_absent holds when the Target is not
//     in the page. Evidence: the text found and the element holding it, or
//     the nearest lines of page text.
//   - element_exists, element_gone: at least one / no match of Target (with
//     nth/last: the element it picks) is shown: visible, or a control a
//     widget keeps visually hidden (opacity 0, no size) inside a visible
//     wrapper. A closed dialog left in the DOM does not exist, and a hidden
//     element is gone. element_state visible/hidden stays strictly visual.
//     Evidence: count (all matches), shown.
//   - value_equals: the exact value of the element Target resolves to (as
//     an action would resolve it); a <select> also matches by the selected
//     option's label. Password values are masked in evidence.
//   - attribute_equals: the exact value of attribute Attr; an absent
//     attribute fails.
//   - element_state: checked, unchecked, enabled, disabled, expanded,
//     collapsed, selected, visible, hidden, focused. hidden also holds when
//     Target is not in the page. A state the element cannot have (unchecked
//     on a paragraph) is unverifiable.
//   - list_count_delta: matches of Target (nth/last ignored) now, minus the
//     count in base, equals Delta. Evidence: before, after, delta,
//     want_delta.
//   - request_succeeded: a request whose URL matches URL (substring or
//     /regex/flags in Go syntax) and Method (any when empty), fired after
//     base.Mark, answered with a 2xx (or exactly Status), redirects
//     followed. It fails as soon as every matching request was answered
//     otherwise, or at the timeout (the request still in flight, or the
//     requests that did fire, as evidence).
//
// A check is unverifiable, never passed, when it cannot be evaluated: an
// invalid regular expression, target or condition, a missing baseline, a
// crashed, stuck or closed page, or ctx ending before the check settled.
// Evidence is JSON-serialisable and the page's secrets are redacted from it
// (and from Expected and Actual).
//
// base is the Baseline captured before the action. When base is nil,
// list_count_delta checks are unverifiable and request_succeeded considers
// every request the page has made.
func (p *Page) Verify(ctx context.Context, conds []Condition, base *Baseline) []CheckResult {
	start := time.Now()
	results := make([]CheckResult, len(conds))
	var inPage, network []int
	for i, c := range conds {
		switch c.Kind {
		case vocab.CondRequestSucceeded:
			network = append(network, i)
		case vocab.CondURLMatches, vocab.CondTitleMatches, vocab.CondTextPresent, vocab.CondTextAbsent, vocab.CondElementExists,
			vocab.CondElementGone, vocab.CondValueEquals, vocab.CondAttributeEquals, vocab.CondElementState, vocab.CondListCountDelta:
			inPage = append(inPage, i)
		default:
			results[i] = unverifiable(c, start, "unknown condition kind %q", c.Kind)
		}
	}
	var wg sync.WaitGroup
	for _, i := range network {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = p.checkRequest(ctx, conds[i], base, start)
		}()
	}
	if len(inPage) > 0 {
		p.waitInPage(ctx, conds, inPage, base, start, results)
	}
	wg.Wait()
	secrets := p.Secrets()
	for i := range results {
		results[i] = redactResult(results[i], secrets)
	}
	return results
}

// stuckGrace is how long past its last deadline an in-page wait may take to
// answer before the page is deemed stuck and its checks unverifiable.
const stuckGrace = 5 * time.Second

// maxRearms bounds how often one wait re-arms after its document was
// replaced, so a page that reloads itself in a loop cannot spin us.
const maxRearms = 64

func timeoutOf(c Condition) time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultCheckTimeout
}

func unverifiable(c Condition, start time.Time, format string, args ...any) CheckResult {
	msg := fmt.Sprintf(format, args...)
	return CheckResult{Kind: c.Kind, Status: Unverifiable, Expected: expectedOf(c), Actual: msg,
		Evidence: map[string]any{"error": msg}, Duration: time.Since(start)}
}

// expectedOf is a compact statement of a condition, used when a check never
// reached the page.
func expectedOf(c Condition) string {
	var parts []string
	parts = append(parts, string(c.Kind))
	if c.Target != nil {
		parts = append(parts, c.Target.String())
	}
	for _, kv := range [][2]string{{"pattern", c.Pattern}, {"text", c.Text}, {"value", c.Value}, {"attr", c.Attr}, {"state", c.State}, {"url", c.URL}, {"method", c.Method}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+strconv.Quote(kv[1]))
		}
	}
	if c.Kind == vocab.CondListCountDelta {
		parts = append(parts, "delta="+itoa(c.Delta))
	}
	if c.Status != 0 {
		parts = append(parts, "status="+itoa(c.Status))
	}
	return strings.Join(parts, " ")
}

func redactResult(r CheckResult, secrets []string) CheckResult {
	if len(secrets) == 0 {
		return r
	}
	r.Expected = redact.String(r.Expected, secrets)
	r.Actual = redact.String(r.Actual, secrets)
	if r.Evidence != nil {
		r.Evidence = redact.Any(r.Evidence, secrets).(map[string]any)
	}
	return r
}

// jsCond is a Condition as the in-page agent sees it.
type jsCond struct {
	Kind       CondKind `json:"kind"`
	Target     *Target  `json:"target,omitempty"`
	TargetDesc string   `json:"targetDesc,omitempty"`
	Pattern    string   `json:"pattern,omitempty"`
	Text       string   `json:"text,omitempty"`
	Value      string   `json:"value"`
	Attr       string   `json:"attr,omitempty"`
	State      string   `json:"state,omitempty"`
	Delta      int      `json:"delta"`
	Before     *int     `json:"before,omitempty"`
	TimeoutMs  float64  `json:"timeoutMs"`
}

type jsResult struct {
	Status   CheckStatus    `json:"status"`
	Expected string         `json:"expected"`
	Actual   string         `json:"actual"`
	Evidence map[string]any `json:"evidence"`
	Ms       float64        `json:"ms"`
}

type jsWait struct {
	Results  []*jsResult `json:"results"`
	Replaced bool        `json:"replaced"`
	Total    float64     `json:"total"` // ms the in-page wait lasted
	Doc      string      `json:"doc"`
}

type jsBase struct {
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
}

var waitTokens atomic.Int64

// waitInPage runs the in-page checks idx of conds in one mk.waitChecks,
// re-arming on a new document when the old one goes away, and stores each
// result in results.
func (p *Page) waitInPage(ctx context.Context, conds []Condition, idx []int, base *Baseline, start time.Time, results []CheckResult) {
	deadline := make(map[int]time.Time, len(idx))
	var jb jsBase
	if base != nil {
		jb = jsBase{URL: base.URL, Title: base.Title}
	}
	pending := make([]int, 0, len(idx))
	for _, i := range idx {
		c := conds[i]
		deadline[i] = start.Add(timeoutOf(c))
		if c.Kind == vocab.CondListCountDelta && c.Target != nil {
			key := c.Target.String()
			if base == nil {
				results[i] = unverifiable(c, start, "no baseline: list_count_delta needs Baseline captured before the action")
				continue
			}
			if msg, bad := base.CountErrors[key]; bad {
				results[i] = unverifiable(c, start, "baseline count of %s failed: %s", key, msg)
				continue
			}
			if _, ok := base.Counts[key]; !ok {
				results[i] = unverifiable(c, start, "no baseline count for %s: pass the condition to Baseline before the action", key)
				continue
			}
		}
		pending = append(pending, i)
	}
	var lastErr error
	rearms := 0
	for len(pending) > 0 {
		now := time.Now()
		jc := make([]jsCond, len(pending))
		var longest time.Duration
		for k, i := range pending {
			c := conds[i]
			left := deadline[i].Sub(now)
			if left < 0 {
				left = 0
			}
			longest = max(longest, left)
			jc[k] = jsCond{Kind: c.Kind, Target: c.Target, Pattern: c.Pattern, Text: c.Text, Value: c.Value,
				Attr: c.Attr, State: c.State, Delta: c.Delta, TimeoutMs: float64(left) / float64(time.Millisecond)}
			if c.Target != nil {
				jc[k].TargetDesc = c.Target.String()
				if c.Kind == vocab.CondListCountDelta {
					n := base.Counts[c.Target.String()]
					jc[k].Before = &n
				}
			}
		}
		token := "w" + strconv.FormatInt(waitTokens.Add(1), 10)
		// The in-page wait resolves by itself at the last deadline; the
		// grace only covers a page whose main thread is stuck (generous: a
		// loaded machine delays timers and CDP answers by seconds).
		callCtx, cancel := context.WithTimeout(ctx, longest+stuckGrace)
		var out jsWait
		err := p.call(callCtx, &out, mkWaitChecks, jc, jb, map[string]any{"token": token})
		recv := time.Now()
		cancel()
		if err != nil {
			if ctx.Err() == nil && documentGone(err) && rearms < maxRearms {
				rearms++
				lastErr = err
				continue // the document was replaced: re-arm on the new one
			}
			if callCtx.Err() != nil {
				p.cancelWait(token)
			}
			for _, i := range pending {
				c := conds[i]
				switch {
				case ctx.Err() != nil:
					results[i] = unverifiable(c, start, "not settled before the context ended: %v", ctx.Err())
				case callCtx.Err() != nil:
					results[i] = unverifiable(c, start, "the page did not answer (main thread busy or hung)")
				default:
					results[i] = unverifiable(c, start, "page could not be checked: %v", err)
				}
				if lastErr != nil {
					results[i].Evidence["rearm_error"] = lastErr.Error()
				}
			}
			return
		}
		var still []int
		for k, i := range pending {
			var r *jsResult
			if k < len(out.Results) {
				r = out.Results[k]
			}
			if r == nil {
				still = append(still, i)
				continue
			}
			ev := r.Evidence
			if ev == nil {
				ev = map[string]any{}
			}
			if base != nil && base.Document != "" && out.Doc != base.Document {
				ev["new_document"] = true
			}
			if rearms > 0 {
				ev["rearms"] = rearms
			}
			// The check settled (total - ms) before the wait returned; timing
			// it from this side counts any transparent re-arm rod did too.
			d := recv.Sub(start) - time.Duration((out.Total-r.Ms)*float64(time.Millisecond))
			results[i] = CheckResult{Kind: conds[i].Kind, Status: normStatus(r.Status), Expected: r.Expected, Actual: r.Actual,
				Evidence: ev, Duration: max(d, 0)}
		}
		if len(still) > 0 && !out.Replaced {
			// Only a cancelled wait leaves checks unsettled without a
			// replaced document; report rather than loop.
			for _, i := range still {
				results[i] = unverifiable(conds[i], start, "in-page wait ended before the check settled")
			}
			return
		}
		if out.Replaced {
			rearms++
			if rearms > maxRearms {
				for _, i := range still {
					results[i] = unverifiable(conds[i], start, "the document was replaced %d times while waiting", rearms)
				}
				return
			}
		}
		pending = still
	}
}

func normStatus(s CheckStatus) CheckStatus {
	switch s {
	case Passed, Failed:
		return s
	default:
		return Unverifiable
	}
}

// cancelWait releases a pending in-page wait whose caller gave up.
func (p *Page) cancelWait(token string) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_ = p.call(ctx, nil, mkVerifyCancel, token)
}

// documentGone reports whether err means the JavaScript context the call ran
// in was destroyed, i.e. the document was replaced by a navigation; the call
// can then be repeated on the new document.
func documentGone(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, cdp.ErrCtxDestroyed) || errors.Is(err, cdp.ErrCtxNotFound) || errors.Is(err, cdp.ErrObjNotFound) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"Execution context was destroyed", "Cannot find context with specified id",
		"Inspected target navigated or closed", "Could not find object with given id", "Promise was collected"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
