package jsonpath

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want []Segment
		err  bool
	}{
		{"$", nil, false},
		{"$.a.b", []Segment{{Key: "a"}, {Key: "b"}}, false},
		{`$.items[0].id`, []Segment{{Key: "items"}, {Index: 0, IsIndex: true}, {Key: "id"}}, false},
		{`$['a b']["c"]`, []Segment{{Key: "a b"}, {Key: "c"}}, false},
		{"$.items[*].id", []Segment{{Key: "items"}, {Wildcard: true}, {Key: "id"}}, false},
		{"$.x[-1]", []Segment{{Key: "x"}, {Index: -1, IsIndex: true}}, false},
		{"a.b", nil, true},
		{"$..a", nil, true},
		{"$.*", nil, true},
		{"$[x]", nil, true},
		{"$[0", nil, true},
		{"$a", nil, true},
	}
	for _, tc := range cases {
		got, err := Parse(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("%q: err %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if !tc.err && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"$", "$.a[0]['b'][*]", "$[", "$..", `$["`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := Parse(s)
		if err == nil && s[0] != '$' {
			t.Fatalf("accepted %q", s)
		}
		_ = segs
	})
}
