package engine

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
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
			if got := Redact(tc.s, tc.secrets); got != tc.want {
				t.Errorf("Redact(%q, %q) = %q, want %q", tc.s, tc.secrets, got, tc.want)
			}
		})
	}
}

// FuzzRedact: no secret survives in the output, whatever the overlaps.
// Secrets that share a character with the replacement text are skipped by
// the check (the replacement itself could then spell them).
func FuzzRedact(f *testing.F) {
	f.Add("token abcdef end", "abc", "abcdef")
	f.Add("xabcdex", "abc", "cde")
	f.Add("aaaaab", "aaa", "ab")
	f.Fuzz(func(t *testing.T, s, a, b string) {
		out := Redact(s, []string{a, b})
		for _, sec := range []string{a, b} {
			if sec == "" || strings.ContainsAny(sec, Redacted) {
				continue
			}
			if strings.Contains(out, sec) {
				t.Fatalf("Redact(%q, %q, %q) = %q still holds %q", s, a, b, out, sec)
			}
		}
		if a == "" && b == "" && out != s {
			t.Fatalf("no secrets changed %q to %q", s, out)
		}
	})
}
