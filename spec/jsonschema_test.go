package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xeipuuv/gojsonschema"
	"gopkg.in/yaml.v3"
)

// yamlToJSON converts a spec file to a JSON document, as an editor would.
func yamlToJSON(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func formatSchema(t *testing.T) *gojsonschema.Schema {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal(JSONSchema(), &raw); err != nil {
		t.Fatalf("JSONSchema is not JSON: %v", err)
	}
	// It must itself be a valid draft-07 schema.
	ms, err := metaSchema()
	if err != nil {
		t.Fatal(err)
	}
	res, err := ms.Validate(gojsonschema.NewGoLoader(raw))
	if err != nil || !res.Valid() {
		t.Fatalf("JSONSchema is not a valid draft-07 schema: %v %v", err, res.Errors())
	}
	s, err := compileSchema(raw)
	if err != nil {
		t.Fatalf("JSONSchema does not compile: %v", err)
	}
	return s
}

func TestJSONSchemaAcceptsValidSpecs(t *testing.T) {
	s := formatSchema(t)
	paths, _ := filepath.Glob(validDir + "/*.yaml")
	if len(paths) == 0 {
		t.Fatal("no valid specs")
	}
	for _, path := range paths {
		res, err := s.Validate(gojsonschema.NewGoLoader(yamlToJSON(t, path)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Errors() {
			t.Errorf("%s: %s", path, e)
		}
	}
}

func TestJSONSchemaRejectsInvalidSpecs(t *testing.T) {
	s := formatSchema(t)
	for _, name := range []string{"unknown_keys", "bad_role", "bad_steps", "bad_targets", "missing_required",
		"bad_foreach", "bad_conditions", "bad_header", "bad_http", "bad_extract", "bad_durations",
		"ten_thousand", "sixty_five", "long_text", "top_level"} {
		path := corpusSpec(t, name)
		res, err := s.Validate(gojsonschema.NewGoLoader(yamlToJSON(t, path)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid() {
			t.Errorf("%s: the format schema accepts it", path)
		}
	}
}

// TestJSONSchemaMatchesParser checks that the schema and the parser agree on
// the keys of every step kind and post-condition.
func TestJSONSchemaMatchesParser(t *testing.T) {
	var raw struct {
		Properties  map[string]any `json:"properties"`
		Definitions struct {
			Step struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"step"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(JSONSchema(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range topKeys {
		if raw.Properties[k] == nil {
			t.Errorf("top-level key %q missing from the schema", k)
		}
	}
	if len(raw.Properties) != len(topKeys) {
		t.Errorf("schema has %d top-level keys, parser %d", len(raw.Properties), len(topKeys))
	}
	if got, want := len(raw.Definitions.Step.Properties), len(stepKinds)+len(commonStepKeys); got != want {
		t.Errorf("schema has %d step keys, parser %d", got, want)
	}
	for kind, keys := range stepKeys {
		s := raw.Definitions.Step.Properties[string(kind)]
		props, _ := s["properties"].(map[string]any)
		alts, _ := s["anyOf"].([]any)
		for _, alt := range alts { // short form | long form
			if m, ok := alt.(map[string]any); ok && m["properties"] != nil {
				props, _ = m["properties"].(map[string]any)
			}
		}
		if props == nil {
			t.Errorf("%s: no properties in the schema", kind)
			continue
		}
		if len(props) != len(keys) {
			t.Errorf("%s: schema has %d keys, parser %d", kind, len(props), len(keys))
		}
		for _, k := range keys {
			if props[k] == nil {
				t.Errorf("%s: key %q missing from the schema", kind, k)
			}
		}
	}
}
