package redact

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"
)

func TestString(t *testing.T) {
	cases := []struct {
		name    string
		s       string
		secrets []string
		want    string
	}{
		{"none", "ada@example.com", nil, "ada@example.com"},
		{"empty secret ignored", "abc", []string{""}, "abc"},
		{"every occurrence", "pw=hunter2 again hunter2", []string{"hunter2"}, "pw=[redacted] again [redacted]"},
		{"shorter secret first", "token abcdef end", []string{"abc", "abcdef"}, "token [redacted] end"},
		{"longer secret first", "token abcdef end", []string{"abcdef", "abc"}, "token [redacted] end"},
		{"overlapping secrets", "xabcdex", []string{"abc", "cde"}, "x[redacted]x"},
		{"adjacent secrets", "abcdef", []string{"abc", "def"}, "[redacted]"},
		{"self-overlapping secret", "aaaaab", []string{"aaa"}, "[redacted]b"},
		{"secret is the whole text", "s3cret", []string{"s3cret"}, "[redacted]"},
		{"multi-byte", "clé: 秘密の鍵!", []string{"秘密の鍵"}, "clé: [redacted]!"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.s, tc.secrets); got != tc.want {
				t.Errorf("String(%q, %q) = %q, want %q", tc.s, tc.secrets, got, tc.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	cases := []struct {
		name    string
		v       any
		secrets []string
		want    string
	}{
		{"no secrets", map[string]any{"a": "x"}, nil, `{"a":"x"}`},
		{"plain secret", map[string]any{"a": "pw hunter2"}, []string{"hunter2"}, `{"a":"pw [redacted]"}`},
		{"quote in the secret", map[string]any{"a": `say "hi"`}, []string{`"hi"`}, `{"a":"say [redacted]"}`},
		{"backslash in the secret", map[string]any{"a": `C:\key`}, []string{`C:\key`}, `{"a":"[redacted]"}`},
		{"overlapping escaped secrets", map[string]any{"a": `ab"cd`}, []string{`ab"`, `"cd`}, `{"a":"[redacted]"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			got := JSON(doc, tc.secrets)
			if string(got) != tc.want {
				t.Errorf("JSON(%s, %q) = %s, want %s", doc, tc.secrets, got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("JSON(%s) = %s is not valid JSON", doc, got)
			}
		})
	}
}

func TestForms(t *testing.T) {
	cases := []struct {
		name    string
		secrets []string
		escapes []func(string) string
		want    []string
	}{
		{"no escapes", []string{"a b", ""}, nil, []string{"a b"}},
		{"url forms", []string{"a b/c"}, []func(string) string{url.QueryEscape, url.PathEscape}, []string{"a b/c", "a+b%2Fc", "a%20b%2Fc"}},
		{"same form once", []string{"plain"}, []func(string) string{url.QueryEscape, JSONEscape}, []string{"plain"}},
		{"json form", []string{`q"x`}, []func(string) string{JSONEscape}, []string{`q"x`, `q\"x`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Forms(tc.secrets, tc.escapes...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Forms(%q) = %q, want %q", tc.secrets, got, tc.want)
			}
		})
	}
}

func TestAny(t *testing.T) {
	cases := []struct {
		name    string
		v       any
		secrets []string
		want    any
	}{
		{"string", "key=s3cret", []string{"s3cret"}, "key=[redacted]"},
		{"nested", map[string]any{"a": []any{"s3cret", 7}, "b": []string{"x s3cret"}}, []string{"s3cret"},
			map[string]any{"a": []any{"[redacted]", 7}, "b": []string{"x [redacted]"}}},
		{"other values untouched", 42, []string{"42"}, 42},
		{"no secrets", map[string]any{"a": "s3cret"}, nil, map[string]any{"a": "s3cret"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Any(tc.v, tc.secrets); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Any(%v) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}
