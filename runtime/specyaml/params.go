package specyaml

import "gopkg.in/yaml.v3"

// Param is one parameter of a written spec.
type Param struct {
	Name        string
	Type        string // a JSON Schema type
	Format      string
	Pattern     string
	Enum        []string
	Required    bool
	Secret      bool
	Description string
	// Items is an array's element schema (type, format, pattern, enum).
	Items *Param
}

// Params is a spec's params block: the required names in order, then each
// parameter's schema — type, format, pattern, enum, minLength 1 for a
// required free-form string (an empty one is never meant), an array's
// items and minItems 1 when required, secret, and the description.
func Params(ps []Param) *yaml.Node {
	n := Map(false)
	var req []string
	for _, p := range ps {
		if p.Required {
			req = append(req, p.Name)
		}
	}
	if len(req) > 0 {
		Add(n, "required", FlowSeq(req))
	}
	props := Map(false)
	for _, p := range ps {
		s := schema(p)
		if p.Secret {
			Add(s, "secret", Bool(true))
		}
		Add(s, "description", Str(p.Description))
		Add(props, p.Name, s)
	}
	Add(n, "properties", props)
	return n
}

// schema is a parameter's type, format, pattern and enum (an array's
// items), with minLength or minItems 1 when it is required and free-form.
func schema(p Param) *yaml.Node {
	s := Map(true)
	Add(s, "type", Str(p.Type))
	if p.Format != "" {
		Add(s, "format", Str(p.Format))
	}
	if p.Pattern != "" {
		Add(s, "pattern", Str(p.Pattern))
	}
	if len(p.Enum) > 0 {
		Add(s, "enum", FlowSeq(p.Enum))
	}
	if p.Type == "string" && p.Required && p.Format == "" && p.Pattern == "" && len(p.Enum) == 0 {
		Add(s, "minLength", Int(1))
	}
	if p.Type == "array" && p.Items != nil {
		Add(s, "items", schema(*p.Items))
		if p.Required {
			Add(s, "minItems", Int(1))
		}
	}
	return s
}
