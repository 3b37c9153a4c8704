package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

type tier string

type row struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

type other struct {
	ID    string `json:"id"`
	Score float64
}

func TestCompare(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	cases := []struct {
		that any
		op   Op
		arg  any
		want bool
	}{
		{"a", vocab.OpEquals, "a", true},
		{tier("pro"), vocab.OpEquals, "pro", true},
		{int64(3), vocab.OpEquals, 3.0, true},
		{n("3"), vocab.OpEquals, int64(3), true},
		{int64(9007199254740993), vocab.OpEquals, int64(9007199254740992), false},
		{[]string{"a", "b"}, vocab.OpEquals, []any{"a", "b"}, true},
		{row{"o1", "open"}, vocab.OpEquals, map[string]any{"id": "o1", "status": "open"}, true},
		{row{"o1", "open"}, vocab.OpNotEquals, map[string]any{"id": "o1"}, true},
		{nil, vocab.OpEquals, nil, true},
		{"", vocab.OpEquals, nil, false},
		{"abc-42", vocab.OpMatches, "^abc-[0-9]+$", true},
		{int64(42), vocab.OpMatches, "^4", true},
		{true, vocab.OpMatches, "^tr", true},
		{"hello world", vocab.OpContains, "o w", true},
		{"hello", vocab.OpContains, int64(1), false},
		{[]string{"bug", "billing"}, vocab.OpContains, "bug", true},
		{[]int64{1, 2}, vocab.OpContains, 2.0, true},
		{[]row{{"o1", "x"}}, vocab.OpContains, map[string]any{"id": "o1", "status": "x"}, true},
		{int64(5), vocab.OpGT, int64(4), true},
		{int64(5), vocab.OpGT, 5.0, false},
		{2.5, vocab.OpGTE, int64(2), true},
		{int64(1), vocab.OpLT, 1.5, true},
		{n("100"), vocab.OpLTE, int64(100), true},
		{"", vocab.OpEmpty, true, true},
		{[]string{}, vocab.OpEmpty, true, true},
		{map[string]any{}, vocab.OpEmpty, true, true},
		{"x", vocab.OpEmpty, false, true},
		{"héllo", vocab.OpLen, int64(5), true},
		{[]int{1, 2, 3}, vocab.OpLen, 3, true},
		{row{}, vocab.OpLen, 2, true},
	}
	for _, c := range cases {
		got, err := Compare(c.op, c.that, c.arg)
		if err != nil {
			t.Errorf("%v %s %v: %v", c.that, c.op, c.arg, err)
			continue
		}
		if got != c.want {
			t.Errorf("%#v %s %#v = %v, want %v", c.that, c.op, c.arg, got, c.want)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	cases := []struct {
		that any
		op   Op
		arg  any
		want string
	}{
		{"x", vocab.OpGT, int64(1), "compares numbers, got a string"},
		{int64(1), vocab.OpLT, "2", "compares numbers, got a string"},
		{int64(1), vocab.OpContains, int64(1), "contains applies to strings and lists"},
		{int64(1), vocab.OpLen, int64(1), "applies to strings, lists and objects"},
		{"x", vocab.OpLen, "1", "len takes an integer"},
		{"x", vocab.OpEmpty, "yes", "empty takes true or false"},
		{"x", vocab.OpMatches, "(", "missing closing )"},
		{[]string{"a"}, vocab.OpMatches, "a", "cannot insert a list into text"},
		{[]string(nil), vocab.OpEmpty, true, "got null"},
		{"x", Op("nope"), "x", "unknown operator"},
	}
	for _, c := range cases {
		_, err := Compare(c.op, c.that, c.arg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %s %v: err = %v, want %q", c.that, c.op, c.arg, err, c.want)
		}
	}
}

func TestText(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{"s", "s"}, {tier("pro"), "pro"}, {int64(-7), "-7"}, {3, "3"}, {2.5, "2.5"}, {1e21, "1000000000000000000000"},
		{0.1, "0.1"}, {true, "true"}, {json.Number("12345678901234567890"), "12345678901234567890"},
	}
	for _, c := range cases {
		got, err := Text(c.v)
		if err != nil || got != c.want {
			t.Errorf("Text(%#v) = %q, %v; want %q", c.v, got, err, c.want)
		}
	}
	for _, v := range []any{nil, []any{1}, map[string]any{}, row{}} {
		if _, err := Text(v); err == nil {
			t.Errorf("Text(%#v) succeeded", v)
		}
	}
}

func TestConvert(t *testing.T) {
	got, err := Convert[[]row]([]any{map[string]any{"id": "a", "status": "s", "extra": 1}})
	if err != nil || len(got) != 1 || got[0] != (row{"a", "s"}) {
		t.Errorf("Convert rows = %v, %v", got, err)
	}
	o, err := Convert[other](row{ID: "x"})
	if err != nil || o.ID != "x" {
		t.Errorf("struct to struct = %v, %v", o, err)
	}
	if s, err := Convert[string]("same"); err != nil || s != "same" {
		t.Errorf("identity = %q, %v", s, err)
	}
	if i, err := Convert[int64](json.Number("42")); err != nil || i != 42 {
		t.Errorf("number = %d, %v", i, err)
	}
	if f, err := Convert[float64](int64(3)); err != nil || f != 3 {
		t.Errorf("int to float = %v, %v", f, err)
	}
	if _, err := Convert[int64](json.Number("1.5")); err == nil {
		t.Error("1.5 converted to an integer")
	}
	_, err = Convert[string](json.Number("7"))
	if err == nil || !strings.Contains(err.Error(), "cannot use 7 as a string") {
		t.Errorf("number to string: %v", err)
	}
	_, err = Convert[[]row]([]any{map[string]any{"id": 1}})
	if err == nil || !strings.Contains(err.Error(), "field") {
		t.Errorf("bad field: %v", err)
	}
}

func TestLookupAndList(t *testing.T) {
	v := map[string]any{"a": map[string]any{"b": []any{1}}, "n": nil}
	got, err := Lookup(v, "a", "b")
	if err != nil || len(got.([]any)) != 1 {
		t.Errorf("Lookup = %v, %v", got, err)
	}
	if _, err := Lookup(v, "a", "c"); err == nil || !strings.Contains(err.Error(), `a has no field "c"`) {
		t.Errorf("missing field: %v", err)
	}
	if _, err := Lookup(v, "a", "b", "c"); err == nil || !strings.Contains(err.Error(), "a.b is a list") {
		t.Errorf("through a list: %v", err)
	}
	if got, err := Lookup(row{ID: "r"}, "id"); err != nil || got != "r" {
		t.Errorf("struct lookup = %v, %v", got, err)
	}
	if l, err := List(nil); err != nil || len(l) != 0 {
		t.Errorf("List(nil) = %v, %v", l, err)
	}
	if l, err := List([]string{"a", "b"}); err != nil || len(l) != 2 {
		t.Errorf("List = %v, %v", l, err)
	}
	if _, err := List("x"); err == nil {
		t.Error("List of a string")
	}
}

func TestLiteral(t *testing.T) {
	cases := []struct {
		in    string
		exact bool
		want  string
	}{
		{"plain", true, "plain"},
		{"/home/", true, "/^/home/$/"},
		{"/a.b/i", false, `//a\.b/i/`},
		{"/x/q", true, "/x/q"},  // q is not a regex flag: not a regex
		{"//", true, "//"},      // too short to be a regex
		{"a/b/", false, "a/b/"}, // does not start with /
		{"/ a  b /", true, "/^/ a b /$/"},
	}
	for _, c := range cases {
		if got := Literal(c.in, c.exact); got != c.want {
			t.Errorf("Literal(%q, %v) = %q, want %q", c.in, c.exact, got, c.want)
		}
	}
	if *Nth(3) != 3 {
		t.Error("Nth")
	}
}
