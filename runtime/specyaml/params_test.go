package specyaml

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// TestParams: the params block as macros.d writes it — required names in
// order, minLength only for a required free-form string, secrets marked
// and not required, templates quoted.
func TestParams(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []Param
		want string
	}{
		{"free string", []Param{{Name: "name", Type: "string", Required: true, Description: `label "Name"`}},
			"required: [name]\nproperties:\n    name: {type: string, minLength: 1, description: label \"Name\"}\n"},
		{"formats, enums, secrets", []Param{
			{Name: "email", Type: "string", Format: "email", Required: true, Description: "e"},
			{Name: "tier", Type: "string", Enum: []string{"free", "pro"}, Description: "t"},
			{Name: "password", Type: "string", Secret: true, Description: "p"},
			{Name: "code", Type: "string", Pattern: "^[0-9]+$", Required: true, Description: "{{ x }}"},
		}, "required: [email, code]\nproperties:\n    email: {type: string, format: email, description: e}\n" +
			"    tier: {type: string, enum: [free, pro], description: t}\n" +
			"    password: {type: string, secret: true, description: p}\n" +
			"    code: {type: string, pattern: '^[0-9]+$', description: \"{{ x }}\"}\n"},
		{"none", nil, "properties: {}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := yaml.Marshal(Params(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
		})
	}
}
