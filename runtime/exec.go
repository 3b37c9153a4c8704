package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/identity"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// PageSource opens a browser page for one macro call; release closes it
// (and its browser context).
type PageSource func(ctx context.Context) (page *engine.Page, release func(), err error)

// ContextPages returns a PageSource that opens each call's page in a fresh
// isolated context of b.
func ContextPages(b *engine.Browser) PageSource {
	return func(ctx context.Context) (*engine.Page, func(), error) {
		c, err := b.NewContext(ctx)
		if err != nil {
			return nil, nil, err
		}
		p, err := c.NewPage(ctx)
		if err != nil {
			_ = c.Close()
			return nil, nil, err
		}
		return p, func() { _ = c.Close() }, nil
	}
}

// Primitive is a deployment's Go function callable from a spec's primitive
// step. Args arrive as JSON already type-checked at generate time.
type Primitive func(ctx context.Context, args json.RawMessage) (any, error)

// Primitives maps primitive names to functions.
type Primitives map[string]Primitive

// StepRecord is the evidence of one executed step.
type StepRecord struct {
	Path string `json:"path"` // e.g. steps[3] or steps[2].steps[0]
	Kind string `json:"kind"`
	// Tab is the tab the step ran in (MainTab, or the name a step opened
	// it under); "" for a step that used no page.
	Tab       string               `json:"tab,omitempty"`
	Status    string               `json:"status"` // passed | failed
	Diagnosis string               `json:"diagnosis,omitempty"`
	Message   string               `json:"message,omitempty"`
	Checks    []engine.CheckResult `json:"checks,omitempty"`
	Detail    map[string]any       `json:"detail,omitempty"`
	Duration  time.Duration        `json:"duration"`
	// Shots are the step's screenshots (Dispatcher.Screenshots), as paths
	// relative to the session log's directory.
	Shots *sessionlog.Shots `json:"shots,omitempty"`
	// Heal is set when the step's written target did not resolve and its
	// element was re-found by the remembered fingerprint (docs/heal.md),
	// whether the step then passed or not; HealMacro is the macro the step
	// belongs to.
	Heal      *engine.Heal `json:"heal,omitempty"`
	HealMacro string       `json:"heal_macro,omitempty"`
	// Remember is what a passing page step leaves for Fingerprints (not in
	// the outcome's JSON: `test --live` records it).
	Remember *Remembered `json:"-"`
}

// Exec is the execution context of one macro call. Generated handlers call
// its methods step by step; it opens the page lazily, keeps the evidence and
// redacts secrets.
type Exec struct {
	d       *Dispatcher
	macro   *Macro
	secrets []string
	depth   int
	// env holds the values RequireEnv returned to this call; one that a
	// page URL carries past its start becomes a secret (urlSecrets).
	env []string

	mu      sync.Mutex
	page    *engine.Page
	tabs    map[string]*tab // the pages steps opened, by name (root only)
	front   *engine.Page    // the tab in front (nil: the main one, until a tab opens)
	unsure  bool            // which tab is in front is not known (the front one closed)
	release func()
	steps   []StepRecord
	data    map[string]any
	parent  *Exec
	// audit is the audit log of the call's context (root only): Exec's
	// methods have no context, and their events go there.
	audit       audit.Sink
	secretReads map[string]bool // the secret variables already recorded (root only)

	// The identity's side of the call (root only): who it runs as, the
	// state restored into its context and the logins it came from, whether
	// a step may have acted, and what showed the session gone.
	ident      *Identity
	restored   identity.State
	restoredOK bool
	logins     map[string]identity.Login
	acted      bool
	signedOut  *signedOut
	// shots is where the call's screenshots go (root only; nil: none).
	shots *callShots
	// files is where steps that write files put them (root only; nil:
	// nowhere, the bytes stay in the step's evidence).
	files *callShots
}

func (d *Dispatcher) newExec(m *Macro, secrets []string) *Exec {
	return &Exec{d: d, macro: m, secrets: secrets}
}

func (x *Exec) close() {
	if x.parent != nil {
		return // a nested call shares its parent's page
	}
	x.mu.Lock()
	rel := x.release
	x.page, x.release = nil, nil
	x.mu.Unlock()
	if rel != nil {
		rel()
	}
}

// Steps returns the evidence recorded so far.
func (x *Exec) Steps() []StepRecord {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]StepRecord(nil), x.steps...)
}

func (x *Exec) record(r StepRecord) {
	for i := range r.Checks {
		r.Checks[i].Expected = redact.String(r.Checks[i].Expected, x.secrets)
		r.Checks[i].Actual = redact.String(r.Checks[i].Actual, x.secrets)
	}
	r.Message = redact.String(r.Message, x.secrets)
	for k, v := range r.Detail {
		if s, ok := v.(string); ok {
			r.Detail[k] = redact.String(s, x.secrets) // a goto's url, an element's name
		}
	}
	root := x
	for root.parent != nil {
		root = root.parent
	}
	root.mu.Lock()
	root.steps = append(root.steps, r)
	root.mu.Unlock()
}

// Record adds the evidence of a step the handler ran itself (a built-in
// tool's own action), with the call's secrets redacted.
func (x *Exec) Record(r StepRecord) { x.record(r) }

// FailStep records r as a failed step and returns the call's error: a
// site_not_allowed one for a *SiteError, else step_failed carrying the
// evidence (or the cancellation or timeout that ended the call). Fail is
// FailStep for a step without evidence.
func (x *Exec) FailStep(ctx context.Context, r StepRecord, err error) error {
	if se := (*SiteError)(nil); errors.As(err, &se) {
		return x.siteFail(ctx, r, err)
	}
	return x.fail(ctx, r, err)
}

// Annotate sets one field of the data on the call's tool_result record
// (explore's page tools put the URL before and after there).
func (x *Exec) Annotate(key string, v any) {
	root := x
	for root.parent != nil {
		root = root.parent
	}
	root.mu.Lock()
	defer root.mu.Unlock()
	if root.data == nil {
		root.data = map[string]any{}
	}
	root.data[key] = v
}

func (x *Exec) annotations() map[string]any {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.data
}

// Env resolves {{ env.NAME }}. A variable whose name reads as a
// credential is recorded in the audit log by name (see SecretEnvName);
// Env cannot fail, so a failed record goes unnoticed here, where
// RequireEnv fails the call.
func (x *Exec) Env(name string) string {
	v, _ := x.lookupEnv(name)
	return v
}

// lookupEnv reads a deployment variable (Dispatcher.Getenv, else the
// process environment) and records a secret_read, once per call and name,
// when the name reads as a credential and the variable is set.
func (x *Exec) lookupEnv(name string) (string, error) {
	var v string
	if x.d != nil {
		v = x.d.getenv(name)
	} else {
		v = os.Getenv(name)
	}
	if v == "" || !SecretEnvName(name) {
		return v, nil
	}
	root := x.root()
	root.mu.Lock()
	seen := root.secretReads[name]
	if root.secretReads == nil {
		root.secretReads = map[string]bool{}
	}
	root.secretReads[name] = true
	root.mu.Unlock()
	if seen {
		return v, nil
	}
	if err := x.auditRecord(audit.Event{Kind: audit.SecretRead, Secret: name, Reason: "{{ env." + name + " }}"}); err != nil {
		return v, &CallError{Code: CodeAuditFailed, Message: fmt.Sprintf("the audit log could not record the read of %s: %v; nothing ran", name, err), Err: err}
	}
	return v, nil
}

// SecretEnvName reports whether an environment variable's name reads as
// a credential: one of its _-separated words is TOKEN, SECRET, PASSWORD,
// PASSWD, PASS, PWD, KEY, APIKEY, CREDENTIAL(S), AUTH, BEARER, COOKIE or
// PRIVATE, or a word contains TOKEN, SECRET, PASSWORD or APIKEY
// (GITHUB_TOKEN, API_KEY, DB_PASSWORD, ACCESSTOKEN). Specs do not declare
// secret variables, so the name is what the runtime can go by.
func SecretEnvName(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		switch w {
		case "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PWD", "KEY", "APIKEY", "CREDENTIAL", "CREDENTIALS", "AUTH", "BEARER", "COOKIE", "PRIVATE":
			return true
		}
		for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "APIKEY"} {
			if strings.Contains(w, s) {
				return true
			}
		}
	}
	return false
}

// auditRecord appends e to the call's audit log (none: nothing to do),
// naming the session and the dispatched macro unless e does.
func (x *Exec) auditRecord(e audit.Event) error {
	root := x.root()
	if root.audit == nil {
		return nil
	}
	if e.Macro == "" {
		e.Macro = x.rootMacro()
	}
	if e.Session == "" && x.d != nil {
		e.Session = x.d.sessionID()
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	return root.audit.Append(context.Background(), e)
}

// Page returns the call's page, opening it on first use.
func (x *Exec) Page(ctx context.Context) (*engine.Page, error) {
	root := x
	for root.parent != nil {
		root = root.parent
	}
	root.mu.Lock()
	defer root.mu.Unlock()
	if root.page != nil {
		return root.page, nil
	}
	if x.d.Pages == nil {
		return nil, &CallError{Code: CodeInternal, Message: "this deployment has no browser configured, and macro " + x.macro.Name + " has page steps"}
	}
	p, rel, err := x.d.Pages(ctx)
	if err != nil {
		if ctx.Err() != nil {
			// Waiting for a page (a busy pool, a slow launch) outlived the
			// call: that is a timeout or a cancellation, not an internal error.
			return nil, classify(ctx, ctx.Err())
		}
		return nil, &CallError{Code: CodeInternal, Message: "open browser page: " + err.Error(), Err: err}
	}
	for _, s := range root.secrets {
		p.AddSecret(s)
	}
	if cerr := x.restoreIdentity(ctx, p); cerr != nil {
		rel()
		return nil, cerr
	}
	root.page, root.release = p, rel
	return p, nil
}

// Do runs one page step in the main tab and records its evidence; a failed
// step returns a step_failed *CallError carrying that evidence (DoIn runs
// a step in another tab).
//
// Under a site policy a goto outside the allowed sites fails before the
// browser is touched, and a step that leaves the page on another site (a
// link, a redirect) fails after it.
func (x *Exec) Do(ctx context.Context, path string, step engine.Step) error {
	return x.DoIn(ctx, path, TabStep{}, step)
}

func (x *Exec) fail(ctx context.Context, rec StepRecord, err error) error {
	rec.Status = "failed"
	rec.Message = redact.String(err.Error(), x.allSecrets())
	var ee *engine.Error
	if asEngine(err, &ee) {
		rec.Diagnosis = string(ee.Code)
		if len(rec.Checks) == 0 {
			rec.Checks = ee.Checks
		}
	}
	x.record(rec)
	if ctx.Err() != nil {
		return classify(ctx, ctx.Err())
	}
	r := rec
	return &CallError{Code: CodeStepFailed, Message: fmt.Sprintf("%s (%s) failed: %s", rec.Path, rec.Kind, rec.Message), Step: &r, Err: redactedError{err, x.allSecrets()}}
}

// HTTPRequest is an http step.
type HTTPRequest struct {
	Method  string
	URL     string
	Headers map[string]string
	Query   map[string]string
	Body    any // encoded as JSON when non-nil
	// ExpectStatus lists acceptable statuses; empty means any 2xx.
	ExpectStatus []int
}

// HTTPResponse is an http step's response.
type HTTPResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body.
func (r *HTTPResponse) JSON() (any, error) {
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		return nil, fmt.Errorf("response is not JSON: %w", err)
	}
	return v, nil
}

const maxHTTPBody = 32 << 20

// HTTP runs an http step; a status outside ExpectStatus fails the step.
func (x *Exec) HTTP(ctx context.Context, path string, req HTTPRequest) (*HTTPResponse, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "http", Status: "passed"}
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		rec.Duration = time.Since(start)
		return nil, x.fail(ctx, rec, fmt.Errorf("invalid URL %q", req.URL))
	}
	sites := x.d.sites(ctx)
	if err := sites.Check(u.String()); err != nil {
		return nil, x.siteFail(ctx, rec, err)
	}
	if len(req.Query) > 0 {
		q := u.Query()
		keys := make([]string, 0, len(req.Query))
		for k := range req.Query {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			q.Set(k, req.Query[k])
		}
		u.RawQuery = q.Encode()
	}
	var body io.Reader
	if req.Body != nil {
		b, err := json.Marshal(req.Body)
		if err != nil {
			return nil, x.fail(ctx, rec, fmt.Errorf("encode body: %w", err))
		}
		body = strings.NewReader(string(b))
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	hr = hr.WithContext(context.WithValue(ctx, httpCallKey{}, HTTPCall{Macro: x.rootMacro(), StepMacro: x.macroName(), Step: path, Secrets: x.allSecrets()}))
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("Accept", "application/json")
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	client := x.d.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	client = sites.Client(client)
	resp, err := client.Do(hr)
	if method != http.MethodGet && method != http.MethodHead {
		x.markActed() // sent: it may have acted, whatever came back
	}
	rec.Detail = map[string]any{"method": method, "url": redact.String(u.String(), x.secrets)}
	if err != nil {
		rec.Duration = time.Since(start)
		if se := (*SiteError)(nil); errors.As(err, &se) {
			return nil, x.siteFail(ctx, rec, se)
		}
		return nil, x.fail(ctx, rec, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody))
	rec.Duration = time.Since(start)
	rec.Detail["status"] = resp.StatusCode
	if err != nil {
		return nil, x.fail(ctx, rec, fmt.Errorf("read body: %w", err))
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if len(req.ExpectStatus) > 0 {
		ok = false
		for _, s := range req.ExpectStatus {
			ok = ok || s == resp.StatusCode
		}
	}
	check := engine.CheckResult{Kind: "expect_status", Status: engine.Passed, Expected: fmt.Sprint(expectText(req.ExpectStatus)), Actual: fmt.Sprint(resp.StatusCode), Duration: rec.Duration}
	if !ok {
		check.Status = engine.Failed
		rec.Checks = []engine.CheckResult{check}
		return nil, x.fail(ctx, rec, fmt.Errorf("%s %s: HTTP %d", method, u.Path, resp.StatusCode))
	}
	rec.Checks = []engine.CheckResult{check}
	x.record(rec)
	return &HTTPResponse{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// HTTPCall describes the macro call an http step's request belongs to.
// Exec.HTTP puts it in the request's context, so that a transport under
// Dispatcher.HTTPClient (a recorder, a replayer) can file the exchange by
// macro and redact the call's secrets.
type HTTPCall struct {
	// Macro is the dispatched macro (the outermost one when macros call
	// each other).
	Macro string
	// StepMacro is the macro whose step this is: Macro, or a macro it
	// calls.
	StepMacro string
	// Step is the step's path in StepMacro, e.g. steps[2].
	Step string
	// Secrets are the values of the call's secret parameters.
	Secrets []string
}

type httpCallKey struct{}

// HTTPCallFrom returns the HTTPCall of an http step's request context.
func HTTPCallFrom(ctx context.Context) (HTTPCall, bool) {
	c, ok := ctx.Value(httpCallKey{}).(HTTPCall)
	return c, ok
}

// rootMacro is the name of the dispatched macro this Exec runs under.
func (x *Exec) rootMacro() string {
	root := x
	for root.parent != nil {
		root = root.parent
	}
	if root.macro == nil {
		return ""
	}
	return root.macro.Name
}

func expectText(s []int) string {
	if len(s) == 0 {
		return "2xx"
	}
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, "|")
}

// Primitive calls a deployment primitive by name.
func (x *Exec) Primitive(ctx context.Context, path, name string, args any) (json.RawMessage, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "primitive", Status: "passed", Detail: map[string]any{"primitive": name}}
	fn, ok := x.d.Primitives[name]
	if !ok {
		return nil, x.fail(ctx, rec, fmt.Errorf("primitive %q is not registered in this deployment", name))
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	// The call's page rides on the context for a primitive that takes it
	// (TypedPagePrimitive); it opens only if the primitive uses it.
	pctx := x.withPage(ctx, path)
	out, err := fn(pctx, b)
	rec.Duration = time.Since(start)
	if pg, _ := PageFrom(pctx); pg.Steps() > 0 {
		rec.Detail["page_steps"] = pg.Steps()
	}
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	res, err := json.Marshal(out)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	x.record(rec)
	return res, nil
}

// maxCallDepth bounds macro composition; generate rejects cycles, this is a
// second line of defence for hand-written registries.
const maxCallDepth = 8

// Call runs another macro of the same registry on the same page, validating
// its arguments like any call; its steps' evidence joins this call's.
func (x *Exec) Call(ctx context.Context, path, name string, args any) (json.RawMessage, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "call", Status: "passed", Detail: map[string]any{"macro": name}}
	if x.depth >= maxCallDepth {
		return nil, x.fail(ctx, rec, fmt.Errorf("macro calls nest deeper than %d", maxCallDepth))
	}
	m, ok := x.d.Registry.Lookup(name)
	if !ok {
		return nil, x.fail(ctx, rec, fmt.Errorf("no macro named %q", name))
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	va, cerr := m.Validate(raw)
	if cerr != nil {
		return nil, x.fail(ctx, rec, cerr)
	}
	valid := va.JSON()
	sub := &Exec{d: x.d, macro: m, secrets: append(x.secrets, secretValues(m, valid)...), depth: x.depth + 1, parent: x}
	out, err := m.Handler(ctx, sub, valid)
	rec.Duration = time.Since(start)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	res, err := json.Marshal(out)
	if err != nil {
		return nil, x.fail(ctx, rec, err)
	}
	x.record(rec)
	return res, nil
}

// urlSecrets makes secret, for the rest of the call, every environment
// value this call read that a page URL carries anywhere but at its start:
// `{{ env.DEMO_URL }}/login` is a site's address, `...?api_key={{
// env.API_KEY }}` is a credential, and the engine records, and the page
// reports, the URL it went to. The value joins the call's secrets (and its
// URL-escaped spellings), the page's and the session log's, before the
// step runs. spec's check refuses such specs; this covers what it cannot
// see (raw macros, values that came out of the environment unannounced).
func (x *Exec) urlSecrets(rawURL string) {
	var found []string
	for e := x; e != nil; e = e.parent {
		for _, v := range e.env {
			if len(v) >= minURLSecret && strings.Index(rawURL, v) > 0 && !slices.Contains(x.secrets, v) {
				found = append(found, v)
			}
		}
	}
	if len(found) == 0 {
		return
	}
	x.addSecrets(redact.Forms(found, url.QueryEscape, url.PathEscape)...)
}

// addSecrets makes values secrets of the call from now on: redacted from
// its evidence, its page's traces and the session log.
func (x *Exec) addSecrets(vals ...string) {
	root := x.root()
	root.mu.Lock()
	p := root.page
	for _, v := range vals {
		if v == "" {
			continue
		}
		x.secrets = append(x.secrets, v)
		if root != x {
			root.secrets = append(root.secrets, v) // the page, opened by the root, gets them
		}
	}
	root.mu.Unlock()
	for _, v := range vals {
		if v == "" {
			continue
		}
		if p != nil {
			p.AddSecret(v)
		}
		if x.d != nil && x.d.Log != nil {
			x.d.Log.AddSecret(v)
		}
	}
}

// minURLSecret is the shortest environment value urlSecrets redacts:
// shorter ones ("1", "en") would blank out unrelated text.
const minURLSecret = 4

// allSecrets returns the secrets of this call and of every call above it.
func (x *Exec) allSecrets() []string {
	var out []string
	for e := x; e != nil; e = e.parent {
		out = append(out, e.secrets...)
	}
	return out
}

// redactedError keeps the chain of a step error for errors.As while its
// text never carries a secret.
type redactedError struct {
	err     error
	secrets []string
}

func (e redactedError) Error() string { return redact.String(e.err.Error(), e.secrets) }
func (e redactedError) Unwrap() error { return e.err }
