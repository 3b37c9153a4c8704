package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/identity"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// loginFlight is one login in progress: every call that finds the same
// session gone waits for it instead of starting its own.
type loginFlight struct {
	done chan struct{}
	out  *Outcome // the login's outcome (nil: another process had already renewed it)
	err  *CallError
}

// signedOut is what showed that a call's session was gone: the step after
// which the page read as signed out, and the check that said so.
type signedOut struct {
	Step  string
	Check engine.CheckResult
}

// provider returns the macro that signs in for m (nil when m needs no
// session).
func (d *Dispatcher) provider(m *Macro) (*Macro, *CallError) {
	if m.Session == "" {
		return nil, nil
	}
	p, ok := d.Registry.Lookup(m.Session)
	if !ok || p.Login == nil {
		return nil, &CallError{Code: CodeInternal, Message: fmt.Sprintf("macro %s needs the session of %s, which is not a login macro of this registry", m.Name, m.Session)}
	}
	return p, nil
}

// runSession runs a macro that needs a signed-in session. The session is
// checked on the page, where it counts: when a navigation (or a failed
// step, or the end of the run) shows the page signed out before anything
// may have acted, one login runs (shared with every call that found the
// same) and the macro runs once more from its start. A site that lets the
// macro in never sees a login.
func (d *Dispatcher) runSession(ctx context.Context, r *callRun, m *Macro, p *Macro, args json.RawMessage) *Outcome {
	id := r.ident
	for attempt := 0; ; attempt++ {
		x, res, herr := d.attempt(ctx, r, m, args)
		out := x.signedOutAt()
		if out == nil {
			return d.settle(ctx, r, x, res, herr)
		}
		r.out.Steps = x.Steps()
		d.logRecord(sessionlog.Record{Type: sessionlog.RecSystem, Turn: r.turn, CallID: r.out.CallID, Event: "signed_out",
			Data: map[string]any{"macro": m.Name, "login": p.Name, "identity": id.Name, "after": out.Step, "check": out.Check.Kind, "attempt": attempt + 1}})
		switch {
		case attempt > 0:
			return r.finish(&CallError{Code: CodeSessionExpired, Message: fmt.Sprintf("the page was signed out again (after %s) right after a fresh login by %s; not retried again", out.Step, p.Name)})
		case x.actedBefore() && m.Risk != RiskRead:
			return r.finish(&CallError{Code: CodeSessionExpired, Message: fmt.Sprintf("the session ended during the call (the page read as signed out after %s) after a step that may have acted; it was not retried, so nothing is applied twice — check the page, then call it again", out.Step)})
		}
		if cerr := d.loginFor(ctx, r, p, m, x.loginRev(p.Name), "signed out after "+out.Step); cerr != nil {
			return r.finish(cerr)
		}
	}
}

// attempt runs the handler once on a fresh Exec, saving what it changed in
// the identity's state; the Exec is closed when it returns.
func (d *Dispatcher) attempt(ctx context.Context, r *callRun, m *Macro, args json.RawMessage) (*Exec, any, error) {
	x := d.newExec(m, r.secrets)
	defer x.close()
	x.audit = audit.From(ctx)
	x.ident = r.ident
	x.shots = r.shots
	x.files = r.files
	r.x = x
	res, err := m.Handler(ctx, x, args)
	if err == nil {
		x.checkSignedOut(ctx, "the last step") // a run that "succeeded" on a login page read nothing real
	}
	if serr := x.saveIdentity(ctx); serr != nil {
		d.logRecord(sessionlog.Record{Type: sessionlog.RecSystem, Turn: r.turn, CallID: r.out.CallID, Event: "identity_not_saved",
			Data: map[string]any{"identity": r.ident.Name, "code": string(CodeIdentity), "message": serr.Message}})
	}
	return x, res, err
}

// settle turns a finished attempt into the call's outcome; a successful
// login macro is put on the identity's record.
func (d *Dispatcher) settle(ctx context.Context, r *callRun, x *Exec, res any, err error) *Outcome {
	r.out.Steps = x.Steps()
	if err != nil {
		return r.finish(classify(ctx, err))
	}
	b, jerr := json.Marshal(res)
	if jerr != nil {
		return r.finish(&CallError{Code: CodeInternal, Message: "encode result: " + jerr.Error(), Err: jerr})
	}
	r.out.OK, r.out.Result = true, b
	return r.finish(nil)
}

// loginFor makes sure a login by p has run for the identity since the
// caller saw login revision seen: it waits for a login in progress in
// this process, takes the store's login lock (one login across
// processes), and runs p only when nobody renewed the session meanwhile.
func (d *Dispatcher) loginFor(ctx context.Context, r *callRun, p, forMacro *Macro, seen int64, why string) *CallError {
	id := r.ident
	id.mu.Lock()
	if f := id.flights[p.Name]; f != nil {
		id.mu.Unlock()
		select {
		case <-f.done:
			return f.err
		case <-ctx.Done():
			return classify(ctx, ctx.Err())
		}
	}
	f := &loginFlight{done: make(chan struct{})}
	if id.flights == nil {
		id.flights = map[string]*loginFlight{}
	}
	id.flights[p.Name] = f
	id.mu.Unlock()
	defer func() {
		id.mu.Lock()
		delete(id.flights, p.Name)
		id.mu.Unlock()
		close(f.done)
	}()
	f.err = d.loginLocked(ctx, r, p, forMacro, seen, why)
	return f.err
}

func (d *Dispatcher) loginLocked(ctx context.Context, r *callRun, p, forMacro *Macro, seen int64, why string) *CallError {
	id := r.ident
	if id.Store != nil {
		unlock, err := id.Store.LockLogin(ctx, id.Name, p.Name)
		if err != nil {
			if ctx.Err() != nil {
				return classify(ctx, ctx.Err())
			}
			return identityFailed(id, "take the login lock", err)
		}
		defer unlock()
	}
	rec, err := id.load()
	if err != nil {
		return identityFailed(id, "read the saved state", err)
	}
	if rec.Logins[p.Name].Rev > seen && hasSession(rec, p.Name, time.Now()) {
		return nil // renewed by another call (or process) since this one looked
	}
	args, cerr := d.loginArgs(ctx, id, p)
	if cerr != nil {
		return cerr
	}
	if err := audit.Record(ctx, audit.Event{Kind: audit.Login, Session: d.sessionID(), Macro: p.Name, Identity: id.Name,
		Reason: fmt.Sprintf("on demand for %s: %s", forMacro.Name, why)}); err != nil {
		return &CallError{Code: CodeAuditFailed, Message: "the audit log could not record the login: " + err.Error() + "; nothing ran", Err: err}
	}
	lr := d.begin(ctx, r.out.CallID+".login", r.turn, p.Name, p, args.args, map[string]any{"on_demand_for": forMacro.Name, "identity": id.Name})
	lr.ident = id
	out := d.run(ctx, lr, args)
	r.out.Logins = append(r.out.Logins, LoginRun{Macro: p.Name, Identity: id.Name, Why: why, OK: out.OK, CallID: lr.out.CallID})
	if !out.OK {
		msg := fmt.Sprintf("%s needs a signed-in session and the login by %s for identity %s failed", forMacro.Name, p.Name, id.Name)
		var step *StepRecord
		if out.Error != nil {
			msg += ": " + out.Error.Message
			step = out.Error.Step
		}
		return &CallError{Code: CodeLoginFailed, Message: msg, Step: step}
	}
	return nil
}

// recordLogin puts a successful run of a login macro on the identity's
// record, so the macros it serves know a session exists.
func recordLogin(ctx context.Context, id *Identity, m *Macro) error {
	_, err := id.update(ctx, func(rec *identity.Record) error {
		if rec.Logins == nil {
			rec.Logins = map[string]identity.Login{}
		}
		rec.Logins[m.Name] = identity.Login{At: time.Now().UTC(), Rev: rec.Logins[m.Name].Rev + 1}
		return nil
	})
	return err
}

// loginArgs builds the login macro's arguments from the identity's
// credentials, then the spec's (an environment variable or a literal);
// never from a model.
func (d *Dispatcher) loginArgs(ctx context.Context, id *Identity, p *Macro) (ValidArgs, *CallError) {
	if _, err := p.compiled(); err != nil {
		return ValidArgs{}, &CallError{Code: CodeInternal, Message: err.Error(), Err: err}
	}
	props, _ := p.rawParams["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	obj := map[string]any{}
	var missing []string
	for _, name := range names {
		v, ok, err := d.credential(ctx, id, p, name)
		if err != nil {
			return ValidArgs{}, &CallError{Code: CodeLoginFailed, Message: fmt.Sprintf("login %s for identity %s: parameter %s: %v", p.Name, id.Name, name, err), Err: err}
		}
		if !ok {
			missing = append(missing, name)
			continue
		}
		obj[name] = typedCredential(props[name], v)
	}
	raw, _ := json.Marshal(obj)
	va, cerr := p.Validate(raw)
	if cerr != nil {
		hint := ""
		if len(missing) > 0 {
			hint = fmt.Sprintf(" (no credential for %s: set identities.%s.credentials in macrokit.yaml, or the spec's login.credentials)", strings.Join(missing, ", "), id.Name)
		}
		return ValidArgs{}, &CallError{Code: CodeLoginFailed, Message: fmt.Sprintf("login %s for identity %s cannot run: %s%s", p.Name, id.Name, cerr.Error(), hint), Args: cerr.Args}
	}
	for _, s := range p.SecretsIn(ctx, va.args) {
		if d.Log != nil {
			d.Log.AddSecret(s)
		}
	}
	return va, nil
}

// credential resolves one login parameter: the identity's configuration
// first, then the spec's credentials.
func (d *Dispatcher) credential(ctx context.Context, id *Identity, p *Macro, name string) (string, bool, error) {
	if id.Credentials != nil {
		v, ok, err := id.Credentials(name)
		if err != nil || ok {
			return v, ok, err
		}
	}
	c, ok := p.Login.Credentials[name]
	switch {
	case !ok:
		return "", false, nil
	case c.Env != "":
		v := d.getenv(c.Env)
		if v == "" {
			return "", false, fmt.Errorf("the environment variable %s is not set", c.Env)
		}
		if SecretEnvName(c.Env) {
			if err := audit.Record(ctx, audit.Event{Kind: audit.SecretRead, Session: d.sessionID(), Macro: p.Name, Identity: id.Name, Secret: c.Env, Reason: "login.credentials." + name}); err != nil {
				return "", false, fmt.Errorf("the audit log could not record the read of %s: %w", c.Env, err)
			}
		}
		return v, true, nil
	}
	return c.Literal, true, nil
}

// getenv reads a deployment variable (Getenv, else the process's).
func (d *Dispatcher) getenv(name string) string {
	if d.Getenv != nil {
		return d.Getenv(name)
	}
	return os.Getenv(name)
}

// typedCredential converts a credential string for a parameter whose
// schema wants a number or a boolean.
func typedCredential(schema any, v string) any {
	s, _ := schema.(map[string]any)
	switch s["type"] {
	case "integer", "number":
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return json.Number(v)
		}
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return v
}

// signedOutConds are the login's signed-out checks as quick reads of the
// page as it is (the step before has settled it).
func signedOutConds(l *Login) []engine.Condition {
	out := make([]engine.Condition, len(l.SignedOut))
	for i, c := range l.SignedOut {
		c.Timeout = signedOutWait
		out[i] = c
	}
	return out
}

// signedOutWait is how long a signed-out condition may take to show on a
// page that has settled.
const signedOutWait = 50 * time.Millisecond

// checkSignedOut reads the page after a step (a navigation, a failure, the
// end of the run) of a macro that needs a session: a passing signed_out
// check, or a failing signed_in one after a navigation, marks the call
// signed out.
func (x *Exec) checkSignedOut(ctx context.Context, after string) {
	root := x.root()
	if root.macro == nil || root.macro.Session == "" || x.d == nil {
		return
	}
	p, _ := x.d.provider(root.macro)
	root.mu.Lock()
	page, done := root.page, root.signedOut != nil
	root.mu.Unlock()
	if p == nil || page == nil || done || ctx.Err() != nil {
		return
	}
	var hit *signedOut
	if len(p.Login.SignedOut) > 0 {
		for _, c := range page.Verify(ctx, signedOutConds(p.Login), nil) {
			if c.Status == engine.Passed {
				hit = &signedOut{Step: after, Check: c}
				break
			}
		}
	}
	if hit == nil && len(p.Login.SignedIn) > 0 {
		for _, c := range page.Verify(ctx, p.Login.SignedIn, nil) {
			if c.Status != engine.Passed {
				hit = &signedOut{Step: after, Check: c}
				break
			}
		}
	}
	if hit != nil {
		root.mu.Lock()
		root.signedOut = hit
		root.mu.Unlock()
	}
}

// afterStep is the session watch of one page step: a navigation or a
// failure is followed by a signed-out check, and a step that found its
// target (so its action may have reached the page, even when the step
// then failed) marks the call as one that may have acted.
func (x *Exec) afterStep(ctx context.Context, path string, step engine.Step, res *engine.StepResult, err error) {
	if step.Action != vocab.ActGoto && res != nil && (res.Act != nil || res.Element != nil) {
		x.markActed()
	}
	if step.Action == vocab.ActGoto || err != nil {
		x.checkSignedOut(ctx, path)
	}
}

// markActed notes that a step of the call may have changed something.
func (x *Exec) markActed() {
	root := x.root()
	root.mu.Lock()
	root.acted = true
	root.mu.Unlock()
}

func (x *Exec) signedOutAt() *signedOut {
	root := x.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	return root.signedOut
}

func (x *Exec) actedBefore() bool {
	root := x.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	return root.acted
}

// loginRev is the provider's login revision the call's state came from.
func (x *Exec) loginRev(provider string) int64 {
	root := x.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	return root.logins[provider].Rev
}
