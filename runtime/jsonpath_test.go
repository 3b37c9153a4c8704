package runtime

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestJSONPath(t *testing.T) {
	doc := decodeJSON(t, `{
		"id": "j1",
		"n": 42,
		"big": 9007199254740993,
		"ok": true,
		"nothing": null,
		"result": {"url": "https://x/y.csv", "rows": 3},
		"items": [{"name": "a", "tags": ["x"]}, {"name": "b", "tags": []}, {"name": "c", "tags": ["y", "z"]}],
		"stats": {"fill ratio": 0.5, "it's": 1},
		"empty": [],
		"matrix": [[1, 2], [3, 4]]
	}`)
	cases := []struct {
		path string
		want string // JSON of the result
	}{
		{"$", ""},
		{"$.id", `"j1"`},
		{"$.n", `42`},
		{"$.big", `9007199254740993`},
		{"$.ok", `true`},
		{"$.nothing", `null`},
		{"$.result.url", `"https://x/y.csv"`},
		{"$.items[0].name", `"a"`},
		{"$.items[-1].name", `"c"`},
		{"$.items[-3].name", `"a"`},
		{"$.items[*].name", `["a","b","c"]`},
		{"$.items[*].tags", `[["x"],[],["y","z"]]`},
		{"$.items[*].tags[*]", `[["x"],[],["y","z"]]`},
		{"$.empty[*].x", `[]`},
		{`$["stats"]["fill ratio"]`, `0.5`},
		{`$['stats']["it's"]`, `1`},
		{"$.matrix[1][0]", `3`},
		{"$.matrix[*][1]", `[2,4]`},
	}
	for _, c := range cases {
		got, err := EvalJSONPath(doc, c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if c.want == "" {
			if !reflect.DeepEqual(got, doc) {
				t.Errorf("$ is not the whole document")
			}
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != c.want {
			t.Errorf("%s = %s, want %s", c.path, b, c.want)
		}
	}
}

func TestJSONPathErrors(t *testing.T) {
	doc := decodeJSON(t, `{"id": "j1", "items": [{"name": "a"}, {"other": 1}], "n": 1}`)
	cases := []struct{ path, want string }{
		{"$.missing", `$ has no key "missing"`},
		{"$.items[2]", `$.items has 2 element(s): index [2] is out of range`},
		{"$.items[-3]", `index [-3] is out of range`},
		{"$.id.x", `$.id is a string, not an object`},
		{"$.id[0]", `$.id is a string, not a list`},
		{"$.n[*]", `$.n is a number, not a list: [*] needs a list`},
		{"$.items[*].name", `$.items[1] has no key "name"`},
		{"$.items[0][\"a b\"]", `$.items[0] has no key "a b"`},
		{"id", `must start with $`},
		{"$.", `empty key`},
		{"$.items[", `unclosed '['`},
		{"$.items[x]", `must be an index`},
		{"$x", `unexpected 'x'`},
		{"$.*", `use [*]`},
	}
	for _, c := range cases {
		_, err := EvalJSONPath(doc, c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.path, err, c.want)
		}
	}
}

func TestJSONPathString(t *testing.T) {
	p, err := ParseJSONPath("$.a[0]['b c']")
	if err != nil {
		t.Fatal(err)
	}
	if p.String() != "$.a[0]['b c']" {
		t.Errorf("String = %q", p.String())
	}
}
