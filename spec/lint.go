package spec

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Lint rule names, stable for suppression and tooling.
const (
	LintIntent          = "intent"       // missing, or the same as another macro's
	LintExamples        = "examples"     // no example of what a user might say
	LintTests           = "tests"        // no tests
	LintUnusedParam     = "unused-param" // a parameter no step, condition or return reads
	LintUnreachableStep = "unreachable"  // a branch whose condition is a constant
)

// Finding is one lint finding, printed like a diagnostic.
type Finding struct {
	Diagnostic
	Rule string
}

// String renders "file:line:col: path: message [rule]".
func (f Finding) String() string { return f.Diagnostic.String() + " [" + f.Rule + "]" }

// Lint checks a validated set for problems that are legal but likely
// mistakes. Findings are sorted by position.
func Lint(set *Set) []Finding {
	var out []Finding
	add := func(s *Spec, pos Pos, path, rule, format string, args ...any) {
		out = append(out, Finding{Diagnostic: Diagnostic{File: s.File, Line: pos.Line, Col: pos.Col, Path: path, Msg: fmt.Sprintf(format, args...)}, Rule: rule})
	}
	intents := map[string]*Spec{}
	for _, s := range set.Specs {
		in := strings.ToLower(strings.Join(strings.Fields(s.Intent), " "))
		if in == "" {
			add(s, s.Pos, "intent", LintIntent, "no intent: the router cannot pick this macro")
		} else if o, dup := intents[in]; dup {
			add(s, s.Pos, "intent", LintIntent, "same intent as %s (%s): a model cannot tell them apart", o.Name, o.File)
		} else {
			intents[in] = s
		}
		if len(s.Examples) == 0 {
			add(s, s.Pos, "examples", LintExamples, "no examples: add at least one thing a user might say, with its arguments")
		}
		if len(s.Tests) == 0 {
			add(s, s.Pos, "tests", LintTests, "no tests: add one so `macrokit test` can check the macro against the site")
		}
		// A consequential click or Enter in a macro not marked dangerous is
		// no longer a lint finding but a check error (spec/consequential.go,
		// over the shared vocabulary).
		used := map[string]bool{}
		collectRefs(reflect.ValueOf(s.Steps), used)
		collectRefs(reflect.ValueOf(s.Returns), used)
		for _, p := range s.Params.Properties() {
			if !used[p.Name] {
				add(s, p.Pos, "params.properties."+p.Name, LintUnusedParam, "parameter %q is never used", p.Name)
			}
		}
		lintParamsGuessable(s, add)
		walkSteps(s.Steps, func(st *Step) {
			if st.Kind != StepIf || st.If == nil || st.If.Cond == nil {
				return
			}
			c := st.If.Cond
			if isConst(c.That) && isConst(c.Arg) {
				add(s, st.Pos, st.Path+".if.cond", LintUnreachableStep, "the condition compares two constants: one branch can never run")
			}
		})
	}
	lintRouting(set, add)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

func isConst(v *Value) bool {
	if v == nil {
		return true
	}
	switch v.Kind {
	case ValueString:
		return v.Str.IsLiteral()
	case ValueList:
		for _, e := range v.List {
			if !isConst(e) {
				return false
			}
		}
	case ValueMap:
		for _, e := range v.Map {
			if !isConst(e.Value) {
				return false
			}
		}
	}
	return true
}

// walkSteps visits every step, nested ones included, in source order.
func walkSteps(steps []*Step, fn func(*Step)) {
	for _, st := range steps {
		fn(st)
		if st.Foreach != nil {
			walkSteps(st.Foreach.Steps, fn)
		}
		if st.If != nil {
			walkSteps(st.If.Then, fn)
			walkSteps(st.If.Else, fn)
		}
	}
}

var refType = reflect.TypeOf(Ref{})

// collectRefs records the names of parameters referenced anywhere under v.
func collectRefs(v reflect.Value, used map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collectRefs(v.Elem(), used)
		}
	case reflect.Struct:
		if v.Type() == refType {
			if v.FieldByName("Scope").String() == string(RefParam) {
				used[v.FieldByName("Name").String()] = true
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				collectRefs(v.Field(i), used)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			collectRefs(v.Index(i), used)
		}
	}
}
