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
}

// Params is a spec's params block: the required names in order, then each
// parameter's schema — type, format, pattern, enum, minLength 1 for a
// required free-form string (an empty one is never meant), secret, and
// the description.
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
		if p.Secret {
			Add(s, "secret", Bool(true))
		}
		Add(s, "description", Str(p.Description))
		Add(props, p.Name, s)
	}
	Add(n, "properties", props)
	return n
}
