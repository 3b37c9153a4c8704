package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/refdata"
)

// This file holds the Exec methods that generated handlers call for the
// steps that are not plain page actions (those go through Exec.Do): extract,
// screenshot, http with JSON extraction, assert, call and primitive with typed
// results, foreach bounds, if conditions, expect on non-page steps, and
// environment variables. Every method records one StepRecord (evidence) per
// step under the step's path, e.g. "steps[3]" or
// "steps[4].foreach[2].steps[0]", and a failure returns a step_failed
// *CallError carrying that record.

// StepOptions are a step's common `timeout` and `retry` keys for the steps
// that are not page actions (page actions carry them in engine.Step).
type StepOptions struct {
	// Timeout bounds the step (0: engine.DefaultStepTimeout).
	Timeout time.Duration
	// Retry follows engine.Step.Retry: 0 is the default, engine.NoRetry
	// means a single attempt. Extract and screenshot of an element wait for
	// the element (polling while it is not found) unless Retry is NoRetry;
	// other steps ignore Retry.
	Retry int
	// Tab is the tab extract and screenshot read ("": MainTab).
	Tab string
}

func (o StepOptions) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return engine.DefaultStepTimeout
}

// RequireEnv returns the deployment's environment variable name (through
// Dispatcher.Getenv, else the process environment). Generated handlers read
// every {{ env.NAME }} they use up front, so an unset (or empty) variable
// fails the call before any step runs.
func (x *Exec) RequireEnv(name string) (string, error) {
	v, err := x.lookupEnv(name) // records a secret's read in the audit log
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", &CallError{Code: CodeInternal, Message: fmt.Sprintf("environment variable %s is not set: macro %s reads {{ env.%s }}; set it where the runtime runs", name, x.macroName(), name)}
	}
	x.env = append(x.env, v) // a page URL may make it a secret (urlSecrets)
	return v, nil
}

func (x *Exec) macroName() string {
	if x.macro == nil {
		return "?"
	}
	return x.macro.Name
}

// Fail records a failed step of the given kind and returns the step_failed
// *CallError for it. Generated code uses it when a value computed between
// runtime calls does not fit (a conversion of an any, text of a list, ...).
func (x *Exec) Fail(ctx context.Context, path, kind string, err error) error {
	return x.fail(ctx, StepRecord{Path: path, Kind: kind}, err)
}

// redact removes the call's secrets (and the page's) from evidence text.
func (x *Exec) redact(s string) string {
	s = redact.String(s, x.secrets)
	root := x
	for root.parent != nil {
		root = root.parent
	}
	root.mu.Lock()
	p := root.page
	root.mu.Unlock()
	if p != nil {
		s = redact.String(s, p.Secrets())
	}
	return s
}

// poll runs f until it succeeds, fails with an error other than not_found,
// or the step's timeout passes (a single attempt with engine.NoRetry).
func poll(ctx context.Context, o StepOptions, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	delay := 100 * time.Millisecond
	var last error
	for {
		err := f(ctx)
		if err == nil {
			return nil
		}
		if last != nil && ctx.Err() != nil {
			return fmt.Errorf("%w (still failing after %s)", last, o.timeout())
		}
		if o.Retry == engine.NoRetry || !engine.IsCode(err, engine.CodeNotFound) {
			return err
		}
		last = err
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (still failing after %s)", last, o.timeout())
		case <-t.C:
		}
		delay = min(delay*2, time.Second)
	}
}

func fieldText(f engine.Field) string {
	switch {
	case f.Attr != "":
		return "attr " + f.Attr
	case f.Value:
		return "value"
	}
	return "text"
}

// Extract reads one string (text, value or attribute) from the element t
// resolves to: an extract step without all, count or rows. It waits up to the
// step's timeout for the element to appear; a missing attribute fails.
func (x *Exec) Extract(ctx context.Context, path string, t engine.Target, f engine.Field, o StepOptions) (string, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "extract", Status: "passed", Tab: tabName(o.Tab), Detail: map[string]any{"target": x.redact(t.String()), "read": fieldText(f)}}
	p, err := x.tabPage(ctx, o.Tab)
	if err != nil {
		return "", x.tabFail(ctx, rec, err)
	}
	var out *engine.Extracted
	err = poll(ctx, o, func(ctx context.Context) error {
		var err error
		out, err = p.Extract(ctx, t, f)
		return err
	})
	rec.Duration = time.Since(start)
	if err != nil {
		return "", x.fail(ctx, rec, err)
	}
	rec.Detail["value"] = x.redact(Clip(out.Value, 200))
	rec.Detail["element"] = map[string]any{"role": out.Element.Role, "name": x.redact(out.Element.Name), "selector": out.Element.Selector}
	x.record(rec)
	return out.Value, nil
}

// Column is one field of an extract with rows.
type Column struct {
	Name  string       // the row object's field
	Field engine.Field // what it reads (Field.In: an element inside the row)
	// Optional yields "" when the element or attribute is missing instead
	// of failing the step.
	Optional bool
}

// ExtractRows reads cols from every element t matches, in document order,
// at most max rows (0: all). A missing non-optional column fails the step.
// No match is not a failure: it is an empty list.
func (x *Exec) ExtractRows(ctx context.Context, path string, t engine.Target, cols []Column, max int, o StepOptions) ([]map[string]string, error) {
	start := time.Now()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	rec := StepRecord{Path: path, Kind: "extract", Status: "passed", Tab: tabName(o.Tab), Detail: map[string]any{"target": x.redact(t.String()), "rows": names}}
	rows, err := x.rows(ctx, t, cols, max, o)
	rec.Duration = time.Since(start)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	rec.Detail["count"] = len(rows)
	x.record(rec)
	return rows, nil
}

func (x *Exec) rows(ctx context.Context, t engine.Target, cols []Column, max int, o StepOptions) ([]map[string]string, error) {
	p, err := x.tabPage(ctx, o.Tab)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	fields := make(map[string]engine.Field, len(cols))
	for _, c := range cols {
		fields[c.Name] = c.Field
	}
	res, err := p.ExtractRows(ctx, t, fields, max)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]string, 0, len(res.Rows))
	for i, r := range res.Rows {
		row := make(map[string]string, len(cols))
		for _, c := range cols {
			v := r[c.Name]
			if v == nil {
				if !c.Optional {
					what := "its element"
					if c.Field.Attr != "" {
						what = "attribute " + c.Field.Attr
					}
					return nil, &engine.Error{Code: engine.CodeNotFound, Target: &t,
						Msg: fmt.Sprintf("match %d: %s is missing (field %s; mark the field optional: true if it may be)", i, what, c.Name)}
				}
				row[c.Name] = ""
				continue
			}
			row[c.Name] = *v
		}
		out = append(out, row)
	}
	return out, nil
}

// ExtractAll reads f from every element t matches, in document order, at
// most max (0: all): an extract with all: true.
func (x *Exec) ExtractAll(ctx context.Context, path string, t engine.Target, f engine.Field, max int, o StepOptions) ([]string, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "extract", Status: "passed", Tab: tabName(o.Tab), Detail: map[string]any{"target": x.redact(t.String()), "read": fieldText(f), "all": true}}
	rows, err := x.rows(ctx, t, []Column{{Name: "v", Field: f}}, max, o)
	rec.Duration = time.Since(start)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r["v"]
	}
	rec.Detail["count"] = len(out)
	x.record(rec)
	return out, nil
}

// Count counts the elements t matches (nth/last ignored): an extract with
// count: true.
func (x *Exec) Count(ctx context.Context, path string, t engine.Target, o StepOptions) (int64, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "extract", Status: "passed", Tab: tabName(o.Tab), Detail: map[string]any{"target": x.redact(t.String()), "count": true}}
	p, err := x.tabPage(ctx, o.Tab)
	if err != nil {
		return 0, x.tabFail(ctx, rec, err)
	}
	cctx, cancel := context.WithTimeout(ctx, o.timeout())
	n, err := p.Count(cctx, t)
	cancel()
	rec.Duration = time.Since(start)
	if err != nil {
		return 0, x.fail(ctx, rec, err)
	}
	rec.Detail["value"] = n
	x.record(rec)
	return int64(n), nil
}

// Screenshot captures the viewport, the whole page (fullPage) or one
// element (t, waited for like an extract) as PNG. The image is kept in the
// step's evidence: StepRecord.Detail["png"] holds the bytes (base64 in JSON),
// with "name" and "bytes"; callers that persist evidence decide where it
// goes (e.g. <name>.png next to the session log).
func (x *Exec) Screenshot(ctx context.Context, path, name string, t *engine.Target, fullPage bool, o StepOptions) error {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "screenshot", Status: "passed", Tab: tabName(o.Tab), Detail: map[string]any{"name": name}}
	p, err := x.tabPage(ctx, o.Tab)
	if err != nil {
		return x.tabFail(ctx, rec, err)
	}
	var png []byte
	if t != nil {
		rec.Detail["target"] = x.redact(t.String())
		err = poll(ctx, o, func(ctx context.Context) error {
			el, err := p.Resolve(ctx, *t)
			if err != nil {
				return err
			}
			h, err := el.Handle(ctx)
			if err != nil {
				return err
			}
			png, err = h.Context(ctx).Screenshot(proto.PageCaptureScreenshotFormatPng, 0)
			return err
		})
	} else {
		cctx, cancel := context.WithTimeout(ctx, o.timeout())
		png, err = p.Rod().Context(cctx).Screenshot(fullPage, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
		cancel()
		rec.Detail["full_page"] = fullPage
	}
	rec.Duration = time.Since(start)
	if err != nil {
		return x.fail(ctx, rec, err)
	}
	rec.Detail["png"] = png
	rec.Detail["bytes"] = len(png)
	x.record(rec)
	return nil
}

// HTTPDo runs an http step whose response is not read (no extract, no into).
func (x *Exec) HTTPDo(ctx context.Context, path string, req HTTPRequest, o StepOptions) error {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	_, err := x.HTTP(ctx, path, req)
	return err
}

// HTTPJSON runs an http step and decodes its JSON response (numbers as
// json.Number, so integers stay exact). A body that is not JSON fails the
// step.
func (x *Exec) HTTPJSON(ctx context.Context, path string, req HTTPRequest, o StepOptions) (any, error) {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	resp, err := x.HTTP(ctx, path, req)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(resp.Body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, x.Fail(ctx, path, "http", fmt.Errorf("response of %s is not JSON: %v", req.URL, err))
	}
	return v, nil
}

// JSONValue reads the value at jsonPath (see ParseJSONPath) from a decoded
// response body and converts it to T (string, int64, float64, bool, []any,
// map[string]any or any): the `extract` of an http step, defining the
// variable name. A missing value or one of another type fails the step.
func JSONValue[T any](ctx context.Context, x *Exec, path, name string, body any, jsonPath string) (T, error) {
	return StepValue[T](ctx, x, path, "http", name, body, jsonPath)
}

// StepValue is JSONValue for a step of the given kind (http, mcp): the
// value at jsonPath of a decoded result, converted to T; a failure is
// that step's.
func StepValue[T any](ctx context.Context, x *Exec, path, kind, name string, body any, jsonPath string) (T, error) {
	var zero T
	v, err := EvalJSONPath(body, jsonPath)
	if err != nil {
		return zero, x.Fail(ctx, path, kind, fmt.Errorf("extract %s: %v", name, err))
	}
	out, err := Convert[T](v)
	if err != nil {
		return zero, x.Fail(ctx, path, kind, fmt.Errorf("extract %s (%s): %v", name, jsonPath, err))
	}
	return out, nil
}

// Baseline captures the page state that a non-page step's `expect`
// conditions are judged against (list counts, the request mark). Call it
// just before the step.
func (x *Exec) Baseline(ctx context.Context, path string, conds []engine.Condition) (*engine.Baseline, error) {
	p, err := x.Page(ctx)
	if err != nil {
		return nil, err
	}
	b, err := p.Baseline(ctx, conds)
	if err != nil {
		return nil, x.Fail(ctx, path, "expect", err)
	}
	return b, nil
}

// Verify checks a non-page step's `expect` conditions after it ran and
// records them; any check that does not pass fails the step.
func (x *Exec) Verify(ctx context.Context, path, kind string, conds []engine.Condition, base *engine.Baseline) error {
	p, err := x.Page(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	sh := x.startShot(kind)
	sh.on(p)
	checks := p.Verify(ctx, conds, base)
	rec := StepRecord{Path: path, Kind: kind, Status: "passed", Tab: MainTab, Checks: checks, Detail: map[string]any{"phase": "expect"}, Duration: time.Since(start)}
	if !engine.AllPassed(checks) {
		var bad []string
		for _, c := range checks {
			if c.Status != engine.Passed {
				bad = append(bad, fmt.Sprintf("%s %s (%s)", c.Kind, c.Status, c.Actual))
			}
		}
		sh.finish(ctx, &rec, true)
		return x.fail(ctx, rec, &engine.Error{Code: engine.CodeCheckFailed, Msg: strings.Join(bad, "; "), Checks: checks})
	}
	sh.finish(ctx, &rec, false)
	x.record(rec)
	return nil
}

func compareCheck(kind string, that any, op Op, arg any) (engine.CheckResult, bool, error) {
	ok, err := Compare(op, that, arg)
	c := engine.CheckResult{Kind: engine.CondKind(kind), Status: engine.Passed, Expected: string(op) + " " + describeValue(arg), Actual: describeValue(that)}
	switch {
	case err != nil:
		c.Status, c.Actual = engine.Unverifiable, err.Error()
	case !ok:
		c.Status = engine.Failed
	}
	return c, ok, err
}

// Assert checks `that <op> arg` (an assert step) and records the check; a
// comparison that does not hold fails the step with message (or a
// description of the comparison when message is empty).
func (x *Exec) Assert(ctx context.Context, path string, that any, op Op, arg any, message string) error {
	start := time.Now()
	c, ok, err := compareCheck("assert", that, op, arg)
	c.Duration = time.Since(start)
	rec := StepRecord{Path: path, Kind: "assert", Status: "passed", Checks: []engine.CheckResult{c}, Duration: c.Duration}
	if err != nil {
		return x.fail(ctx, rec, errors.New(x.redact(err.Error())))
	}
	if !ok {
		if message == "" {
			message = fmt.Sprintf("assertion failed: %s is not %s", c.Actual, c.Expected)
		}
		// The values may hold secrets: the failure message is redacted here
		// (x.fail redacts the record, not the *CallError's message).
		return x.fail(ctx, rec, errors.New(x.redact(message)))
	}
	x.record(rec)
	return nil
}

// Cond evaluates an if step's comparison and records its outcome (as
// detail, not as a check: a false condition is not a failure).
func (x *Exec) Cond(ctx context.Context, path string, that any, op Op, arg any) (bool, error) {
	start := time.Now()
	c, ok, err := compareCheck("if", that, op, arg)
	rec := StepRecord{Path: path, Kind: "if", Status: "passed", Duration: time.Since(start),
		Detail: map[string]any{"cond": x.redact(c.Actual + " " + c.Expected), "result": ok}}
	if err != nil {
		return false, x.fail(ctx, rec, errors.New(x.redact(err.Error())))
	}
	x.record(rec)
	return ok, nil
}

// PageCond checks an if step's post-condition on the page: once when c has
// no timeout, else polled until it holds or its timeout passes. A condition
// that cannot be evaluated (unverifiable) fails the step.
func (x *Exec) PageCond(ctx context.Context, path string, c engine.Condition) (bool, error) {
	return x.PageCondIn(ctx, path, MainTab, c)
}

// PageCondIn is PageCond in the named tab.
func (x *Exec) PageCondIn(ctx context.Context, path, tab string, c engine.Condition) (bool, error) {
	p, err := x.checkPage(ctx, tab)
	if err != nil {
		return false, x.tabFail(ctx, StepRecord{Path: path, Kind: "if", Tab: tabName(tab)}, err)
	}
	start := time.Now()
	if c.Timeout <= 0 {
		c.Timeout = time.Millisecond // one evaluation
	}
	res := p.Verify(ctx, []engine.Condition{c}, nil)[0]
	rec := StepRecord{Path: path, Kind: "if", Status: "passed", Tab: tabName(tab), Duration: time.Since(start),
		Detail: map[string]any{"cond": string(c.Kind), "expected": x.redact(res.Expected), "actual": x.redact(res.Actual), "result": res.Status == engine.Passed}}
	if res.Status != engine.Passed && res.Status != engine.Failed {
		return false, x.fail(ctx, rec, &engine.Error{Code: engine.CodeCheckFailed, Msg: "condition " + string(c.Kind) + " could not be evaluated: " + res.Actual, Checks: []engine.CheckResult{res}})
	}
	x.record(rec)
	return res.Status == engine.Passed, nil
}

// Foreach checks a foreach step's bound before its first iteration: a list
// longer than max fails the step (it is never truncated).
func (x *Exec) Foreach(ctx context.Context, path string, n, max int) error {
	rec := StepRecord{Path: path, Kind: "foreach", Status: "passed", Detail: map[string]any{"items": n, "max": max}}
	if n > max {
		return x.fail(ctx, rec, fmt.Errorf("the list has %d elements, more than max %d (foreach does not truncate: raise max or narrow the list)", n, max))
	}
	x.record(rec)
	return nil
}

// Lookup runs a lookup step: the row of file in a reference-data bundle
// whose key column is key, from Dispatcher.Refdata or else the Lookuper on
// ctx (refdata.NewContext). The evidence names the bundle version read, the
// file, the key and whether the row was found. Any failure (not_found for a
// missing key, not_configured without a store, expired, stale, ...) fails
// the step with the *refdata.Error, whose code becomes the diagnosis.
func (x *Exec) Lookup(ctx context.Context, path, bundle, file, key string) (map[string]any, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "lookup", Status: "passed", Detail: map[string]any{"bundle": bundle, "file": file, "key": x.redact(key), "found": false}}
	var l refdata.Lookuper
	if x.d != nil {
		l = x.d.Refdata
	}
	row, ref, err := refdata.LookupRef(ctx, l, bundle, file, key)
	rec.Duration = time.Since(start)
	if ref != "" {
		rec.Detail["bundle"] = ref
	}
	if err != nil {
		rec.Diagnosis = string(refdata.CodeOf(err))
		return nil, x.fail(ctx, rec, fmt.Errorf("lookup of key %q in %s %s: %w", key, bundle, file, err))
	}
	rec.Detail["found"] = true
	x.record(rec)
	return row, nil
}

// CallAs runs another macro of the registry (Exec.Call) and decodes its
// result into T, the callee's generated result type.
func CallAs[T any](ctx context.Context, x *Exec, path, name string, args any) (T, error) {
	var out T
	raw, err := x.Call(ctx, path, name, args)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, x.Fail(ctx, path, "call", fmt.Errorf("result of %s: %v", name, jsonErr(err)))
	}
	return out, nil
}

// PrimitiveAs calls a deployment primitive (Exec.Primitive) and decodes its
// result into T, the type the primitive's signature declares. A result of
// another shape fails the step.
func PrimitiveAs[T any](ctx context.Context, x *Exec, path, name string, args any) (T, error) {
	var out T
	raw, err := x.Primitive(ctx, path, name, args)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, x.Fail(ctx, path, "primitive", fmt.Errorf("primitive %s returned %s: %v", name, describeValue(json.RawMessage(raw)), jsonErr(err)))
	}
	return out, nil
}

// Handle adapts a generated, typed macro function to a Handler: it decodes
// the arguments (already validated, with defaults applied at every level) into P
// and calls h. A decoding failure is an invalid_arguments error.
func Handle[P, R any](h func(context.Context, *Exec, P) (R, error)) Handler {
	return func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
		var p P
		if err := decodeArgs(x, args, &p); err != nil {
			return nil, err
		}
		return h(ctx, x, p)
	}
}

// HandleNoResult is Handle for a macro without a result: the call's result
// is JSON null.
func HandleNoResult[P any](h func(context.Context, *Exec, P) error) Handler {
	return func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
		var p P
		if err := decodeArgs(x, args, &p); err != nil {
			return nil, err
		}
		return nil, h(ctx, x, p)
	}
}

func decodeArgs(x *Exec, args json.RawMessage, p any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(args, p); err != nil {
		return &CallError{Code: CodeInvalidArguments, Message: x.macroName() + ": " + jsonErr(err), Err: err}
	}
	return nil
}
