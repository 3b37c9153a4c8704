package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"sync"

	"github.com/xeipuuv/gojsonschema"
)

// Risk is a macro's risk tier.
type Risk string

// Risk tiers: read macros only look, act macros change state, dangerous
// macros need an approval before they run.
const (
	RiskRead      Risk = "read"
	RiskAct       Risk = "act"
	RiskDangerous Risk = "dangerous"
)

// Example is something a user might say and the arguments it means.
type Example struct {
	Say  string          `json:"say"`
	Args json.RawMessage `json:"args"`
}

// Handler runs a macro: args are already validated against the params
// schema, with defaults applied.
type Handler func(ctx context.Context, x *Exec, args json.RawMessage) (any, error)

// Macro is one registered macro. Generated code builds these; hand-written
// Go macros can too.
type Macro struct {
	Name        string
	Version     string
	Intent      string
	Description string
	Risk        Risk
	// Params and Result are JSON Schemas (draft-07).
	Params json.RawMessage
	Result json.RawMessage
	// Secrets names the top-level params whose values are redacted everywhere.
	Secrets []string
	// Splits are the spec's `split:` annotations, applied by NormalizeArgs.
	Splits []ArgSplit
	// Composed names the params whose values the model writes (`composed:
	// true`: a message, a title): Ungrounded does not look for them in the
	// conversation.
	Composed []string
	// Consequential are the params that turn a dry run into a write or
	// widen an effect (`consequential:`): a call whose value departs from
	// the default without the request asking for it is Unasked.
	Consequential []Consequential
	Examples      []Example
	// Env lists the environment variables the macro's templates read
	// ({{ env.NAME }}), sorted. Recorders use it to keep deployment URLs
	// out of fixtures.
	Env []string
	// Session names the macro whose Login provides the signed-in session
	// this macro needs ("" when it needs none): the runtime runs it first
	// when the identity has no live session, and once more (then retries
	// from the start) when a step lands on a signed-out page.
	Session string
	// Login is set on a macro that signs in (the spec's `login:` block).
	Login *Login
	// DoneCheck, when set, tells on a fresh page whether a call already
	// had its effect (the spec's `done_check:`; Dispatcher.CheckDone).
	DoneCheck *DoneCheck
	// Tests are the macro's end-to-end tests (the spec's `tests:`).
	Tests   []MacroTest
	Handler Handler
	// Raw marks a built-in tool that no spec declares (explore mode's page
	// tools): its tool_call and tool_result records carry raw: true, and a
	// failed step's diagnosis, in the shape macrokit gate reads
	// (docs/explore.md).
	Raw bool
	// Check, when set, refines validation beyond what a schema can say. It
	// gets the arguments with defaults applied and the schema's errors, and
	// returns the errors to report (none: the arguments are valid).
	Check func(args json.RawMessage, errs []ArgError) []ArgError
	// SecretsOf, when set, returns secret values known only at call time,
	// such as text typed into a password field; SecretsIn adds them to the
	// Secrets params' values.
	SecretsOf func(ctx context.Context, args json.RawMessage) []string

	once      sync.Once
	schema    *gojsonschema.Schema
	rawParams map[string]any // the params schema, decoded, for defaults
	splits    []compiledSplit
	err       error
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// compiled compiles the params schema once.
func (m *Macro) compiled() (*gojsonschema.Schema, error) {
	m.once.Do(func() {
		params := m.Params
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		m.schema, m.err = gojsonschema.NewSchema(gojsonschema.NewBytesLoader(params))
		if m.err != nil {
			m.err = fmt.Errorf("macro %s: params schema: %w", m.Name, m.err)
			return
		}
		var raw map[string]any
		if err := json.Unmarshal(params, &raw); err != nil {
			m.err = fmt.Errorf("macro %s: params schema: %w", m.Name, err)
			return
		}
		m.rawParams = raw
		if m.splits, m.err = compileSplits(m.Splits, raw); m.err != nil {
			m.err = fmt.Errorf("macro %s: %w", m.Name, m.err)
		}
	})
	return m.schema, m.err
}

// Tool is a macro as a model or an MCP client sees it.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Risk         Risk            `json:"risk"`
}

// Registry is an immutable, sorted set of macros.
type Registry struct {
	byName map[string]*Macro
	sorted []*Macro
}

// NewRegistry checks the macros (unique snake_case names, a handler, a
// compilable params schema) and returns them as a registry.
func NewRegistry(macros ...*Macro) (*Registry, error) {
	r := &Registry{byName: make(map[string]*Macro, len(macros))}
	for _, m := range macros {
		if m == nil {
			return nil, fmt.Errorf("registry: nil macro")
		}
		if !nameRE.MatchString(m.Name) {
			return nil, fmt.Errorf("registry: invalid macro name %q", m.Name)
		}
		if _, dup := r.byName[m.Name]; dup {
			return nil, fmt.Errorf("registry: duplicate macro %q", m.Name)
		}
		if m.Handler == nil {
			return nil, fmt.Errorf("registry: macro %q has no handler", m.Name)
		}
		switch m.Risk {
		case RiskRead, RiskAct, RiskDangerous:
		case "":
			m.Risk = RiskAct
		default:
			return nil, fmt.Errorf("registry: macro %q: unknown risk %q", m.Name, m.Risk)
		}
		if _, err := m.compiled(); err != nil {
			return nil, err
		}
		r.byName[m.Name] = m
		r.sorted = append(r.sorted, m)
	}
	sort.Slice(r.sorted, func(i, j int) bool { return r.sorted[i].Name < r.sorted[j].Name })
	return r, nil
}

// Lookup returns the macro with the given name.
func (r *Registry) Lookup(name string) (*Macro, bool) {
	m, ok := r.byName[name]
	return m, ok
}

// List returns the macros sorted by name.
func (r *Registry) List() []*Macro { return append([]*Macro(nil), r.sorted...) }

// Len is the number of macros.
func (r *Registry) Len() int { return len(r.sorted) }

// Tools returns the tool catalog, sorted by name.
func (r *Registry) Tools() []Tool {
	out := make([]Tool, 0, len(r.sorted))
	for _, m := range r.sorted {
		out = append(out, m.Tool())
	}
	return out
}

// Internal reports whether the macro is a login that only serves other
// macros (login.internal): no model is offered it or may call it, so none
// is ever asked for a password.
func (m *Macro) Internal() bool { return m.Login != nil && m.Login.Internal }

// Offered returns the macros a model may be offered, sorted by name: all
// but the internal logins.
func (r *Registry) Offered() []*Macro {
	out := make([]*Macro, 0, len(r.sorted))
	for _, m := range r.sorted {
		if !m.Internal() {
			out = append(out, m)
		}
	}
	return out
}

// Tool returns the macro as a model or an MCP client sees it.
func (m *Macro) Tool() Tool {
	desc := m.Intent
	if m.Description != "" && m.Description != m.Intent {
		desc += ". " + m.Description
	}
	params := m.Params
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return Tool{Name: m.Name, Description: desc, InputSchema: params, OutputSchema: m.Result, Risk: m.Risk}
}

// applyDefaults fills in the `default` of every property missing from v,
// recursing into nested objects and the items of arrays that are present.
// Only the plain keywords are followed (properties, items), which is what
// spec-generated schemas use.
func applyDefaults(schema map[string]any, v any) any {
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for name, ps := range props {
			sub, _ := ps.(map[string]any)
			if sub == nil {
				continue
			}
			if cur, ok := x[name]; ok {
				x[name] = applyDefaults(sub, cur)
			} else if d, ok := sub["default"]; ok {
				x[name] = cloneJSON(d)
			}
		}
		return x
	case []any:
		items, _ := schema["items"].(map[string]any)
		if items == nil {
			return x
		}
		for i := range x {
			x[i] = applyDefaults(items, x[i])
		}
		return x
	}
	return v
}

// cloneJSON deep-copies a decoded JSON value, so a default shared by the
// schema is never aliased into (and mutated through) call arguments.
func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneJSON(e)
		}
		return out
	}
	return v
}
