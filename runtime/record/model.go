package record

import (
	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Macro is a recorded macro: what Build made of a recording, rendered by
// YAML.
type Macro struct {
	Name   string
	Intent string
	// Description says where it was recorded.
	Description string
	Risk        string // read, act or dangerous
	Params      []*Param
	Steps       []*Step
	// Notes are review notes for the file's header (no secrets).
	Notes []string
}

// Param is one parameter: a value the user filled in or selected.
type Param struct {
	Name   string
	Type   string // string, integer, number, or array (of strings: a multiple select)
	Format string // email, date, ...
	// Enum are the values allowed (an array's: of each item).
	Enum   []string
	Secret bool
	// Withheld is a secret whose value a kept recording did not keep
	// (Keep): the macro cannot be run with the recorded values.
	Withheld bool
	// Field is the field the value went into, as a target (`label "Email"`).
	Field string
	// Value is the value recorded. A secret's stays in memory (Args) and is
	// never rendered.
	Value string
	// Values are an array's values recorded (Value is then empty); Path
	// says they are a cascader's levels rather than several options.
	Values []string
	Path   bool
}

// Step is one step of the macro. Texts hold spec templates: "{{ email }}",
// literal "{{" escaped.
type Step struct {
	Kind   vocab.Action // goto, click, fill, select, check, uncheck, press
	URL    string       // goto
	Target *engine.Target
	Value  string // fill value, select option (or list: see List)
	Key    string // press
	// List is the key a select of a list is written under: "options"
	// (several options) or "path" (a cascader's levels); "" for one
	// option. Value then refers to an array parameter, or Options are the
	// list written as it is.
	List    string
	Options []string
	Expect  []Cond
	// Unverified is why no check proves the step's effect (checked
	// effects, docs/spec.md).
	Unverified string
}

// Cond is one post-condition, in the spec's terms.
type Cond struct {
	Kind    vocab.CondKind
	Pattern string         // url_matches
	Text    string         // text_present; value_equals: the value
	Target  *engine.Target // element_exists, list_count_delta, value_equals
	Delta   int            // list_count_delta
	URL     string         // request_succeeded
	Method  string         // request_succeeded
	Within  *engine.Target // text_present: where the text shows
	// pointed is what the element a user pointed at showed, until Build
	// settles which check it becomes.
	pointed *pointed
}

// pointed is an element a user pointed at while recording: its visible
// text, or a field's value.
type pointed struct{ text, value string }

// Withheld lists the parameters whose recorded values were not kept (a
// rebuilt recording's secrets): Args cannot run the macro without them.
func (m *Macro) Withheld() []string {
	var out []string
	for _, p := range m.Params {
		if p.Withheld {
			out = append(out, p.Name)
		}
	}
	return out
}

// Args are the recorded values by parameter name, secrets included: the
// arguments that replay the recording. Never write them anywhere.
func (m *Macro) Args() map[string]any {
	out := map[string]any{}
	for _, p := range m.Params {
		out[p.Name] = p.value()
	}
	return out
}

// value is the recorded value typed as the parameter is.
func (p *Param) value() any {
	if p.Type == "array" {
		out := make([]any, len(p.Values))
		for i, v := range p.Values {
			out[i] = v
		}
		return out
	}
	return typedValue(p.Type, p.Value)
}

// sep joins an array's values in an example sentence.
func (p *Param) sep() string {
	if p.Path {
		return " / "
	}
	return " and "
}
