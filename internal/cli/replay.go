package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/vocab"
	"github.com/macrokit/macrokit-go/spec"
)

// replayMacro makes a runnable macro of a checked spec without compiling
// it, for `record --run`: the page steps a recording produces (goto,
// click, fill, select, check, uncheck, press, hover) with their
// post-conditions, templates over parameters and env. It is what the
// generated code does for those steps (text insertion as gen/expr.go
// does it); any other step is refused, since only compiled specs run them.
func replayMacro(s *spec.Spec) (*runtime.Macro, error) {
	for _, st := range s.Steps {
		switch st.Kind {
		case spec.StepGoto, spec.StepClick, spec.StepFill, spec.StepSelect, spec.StepCheck, spec.StepUncheck, spec.StepPress, spec.StepHover:
		default:
			return nil, fmt.Errorf("%s: a %s step runs only compiled (macrokit generate)", st.Path, st.Kind)
		}
		if st.Tab != "" || st.Opens != "" {
			return nil, fmt.Errorf("%s: tabs run only compiled (macrokit generate)", st.Path)
		}
		for _, f := range []*spec.Template{st.OptionsFrom, st.SelectPathFrom} {
			if f != nil && (f.Whole() == nil || f.Whole().Scope != spec.RefParam) {
				return nil, fmt.Errorf("%s: a list from a variable runs only compiled (macrokit generate)", st.Path)
			}
		}
	}
	params := json.RawMessage(`{"type":"object"}`)
	if s.Params != nil {
		raw, err := json.Marshal(s.Params.Raw)
		if err != nil {
			return nil, err
		}
		params = raw
	}
	risk := map[spec.Risk]runtime.Risk{spec.RiskRead: runtime.RiskRead, spec.RiskAct: runtime.RiskAct, spec.RiskDangerous: runtime.RiskDangerous}[s.Risk]
	m := &runtime.Macro{Name: s.Name, Version: s.Version, Intent: s.Intent, Description: s.Description, Risk: risk, Params: params, Env: s.Env,
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			var a map[string]any
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			r := &replayer{x: x, args: a}
			for _, st := range s.Steps {
				step, err := r.step(st)
				if err != nil {
					return nil, err
				}
				if err := x.Do(ctx, st.Path, step); err != nil {
					return nil, err
				}
			}
			return map[string]any{}, nil
		}}
	return m, nil
}

type replayer struct {
	x    *runtime.Exec
	args map[string]any
}

// Text modes, as gen/expr.go inserts templates.
const (
	replayPlain = iota
	replayRegex
	replayExact
	replaySub
)

func (r *replayer) text(t *spec.Template, mode int) (string, error) {
	if t == nil {
		return "", nil
	}
	if (mode == replayExact || mode == replaySub) && t.IsRegex() {
		mode = replayRegex
	}
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Ref == nil {
			b.WriteString(p.Lit)
			continue
		}
		var v string
		switch p.Ref.Scope {
		case spec.RefEnv:
			s, err := r.x.RequireEnv(p.Ref.Name)
			if err != nil {
				return "", err
			}
			v = s
		case spec.RefParam:
			switch a := r.args[p.Ref.Name].(type) {
			case nil:
			case string:
				v = a
			case float64:
				v = strconv.FormatFloat(a, 'f', -1, 64)
			case bool:
				v = strconv.FormatBool(a)
			default:
				return "", fmt.Errorf("{{ %s }}: cannot insert a %T into text", p.Ref.Raw, a)
			}
		default:
			return "", fmt.Errorf("{{ %s }}: variables run only compiled (macrokit generate)", p.Ref.Raw)
		}
		if mode == replayRegex {
			v = regexp.QuoteMeta(v)
		}
		b.WriteString(v)
	}
	out := b.String()
	if (mode == replayExact || mode == replaySub) && !t.IsLiteral() && len(t.Parts) > 0 && (t.Parts[0].Ref != nil || strings.HasPrefix(t.Parts[0].Lit, "/")) {
		out = runtime.Literal(out, mode == replayExact)
	}
	return out, nil
}

func (r *replayer) target(t *spec.Target) (*engine.Target, error) {
	if t == nil {
		return nil, nil
	}
	out := &engine.Target{Role: t.Role, Nth: t.Nth, Last: t.Last}
	for _, f := range []struct {
		dst  *string
		src  *spec.Template
		mode int
	}{{&out.Name, t.Name, replayExact}, {&out.Label, t.Label, replayExact}, {&out.Text, t.Text, replayExact},
		{&out.Placeholder, t.Placeholder, replayExact}, {&out.TestID, t.TestID, replayPlain}, {&out.CSS, t.CSS, replayPlain}} {
		s, err := r.text(f.src, f.mode)
		if err != nil {
			return nil, err
		}
		*f.dst = s
	}
	w, err := r.target(t.Within)
	if err != nil {
		return nil, err
	}
	out.Within = w
	return out, nil
}

func (r *replayer) step(st *spec.Step) (engine.Step, error) {
	out := engine.Step{Action: vocab.Action(st.Kind), Timeout: st.Timeout}
	if st.Retry != nil {
		if *st.Retry == 0 {
			out.Retry = engine.NoRetry
		} else {
			out.Retry = *st.Retry
		}
	}
	var err error
	if out.Target, err = r.target(st.Target); err != nil {
		return out, err
	}
	if out.URL, err = r.text(st.URL, replayPlain); err != nil {
		return out, err
	}
	if out.Value, err = r.text(st.Value, replayPlain); err != nil {
		return out, err
	}
	if out.Key, err = r.text(st.Key, replayPlain); err != nil {
		return out, err
	}
	if out.Options, err = r.texts(st.Options, st.OptionsFrom); err != nil {
		return out, err
	}
	if out.Path, err = r.texts(st.SelectPath, st.SelectPathFrom); err != nil {
		return out, err
	}
	for _, t := range []*spec.Template{st.Value, st.OptionsFrom, st.SelectPathFrom} {
		if t != nil && t.Secret {
			out.Sensitive = true
		}
	}
	for _, c := range st.Expect {
		ec := engine.Condition{Kind: c.Kind, Attr: c.Attr, State: string(c.State), Delta: c.Delta, Method: c.Method, Status: c.Status, Timeout: c.Timeout}
		if ec.Target, err = r.target(c.Target); err != nil {
			return out, err
		}
		if ec.Pattern, err = r.text(c.Pattern, replayRegex); err != nil {
			return out, err
		}
		if ec.Text, err = r.text(c.Text, replaySub); err != nil {
			return out, err
		}
		if ec.Value, err = r.text(c.Value, replayPlain); err != nil {
			return out, err
		}
		if ec.URL, err = r.text(c.URL, replaySub); err != nil {
			return out, err
		}
		out.Expect = append(out.Expect, ec)
	}
	return out, nil
}

// texts are a select's options or path: the literal texts, or the list
// from (one reference), as gen's texts compiles them.
func (r *replayer) texts(lit []*spec.Template, from *spec.Template) ([]string, error) {
	if from != nil {
		return r.list(from.Whole())
	}
	var out []string
	for _, t := range lit {
		s, err := r.text(t, replayPlain)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// list is a parameter holding a list of strings (select's options:
// "{{ regions }}", or path), as the generated code converts it. An empty
// list is refused: a select of nothing would pass having done nothing.
func (r *replayer) list(ref *spec.Ref) ([]string, error) {
	items, err := runtime.List(r.args[ref.Name])
	if err != nil {
		return nil, fmt.Errorf("{{ %s }}: %w", ref.Raw, err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("{{ %s }}: an empty list", ref.Raw)
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("{{ %s }}[%d]: options are strings, got %T", ref.Raw, i, it)
		}
		out[i] = s
	}
	return out, nil
}
