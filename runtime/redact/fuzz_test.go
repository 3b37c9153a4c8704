package redact

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzString: no secret survives in the output, whatever the overlaps.
// Secrets that share a character with the marker are skipped by the check
// (the marker itself could then spell them).
func FuzzString(f *testing.F) {
	f.Add("token abcdef end", "abc", "abcdef")
	f.Add("xabcdex", "abc", "cde")
	f.Add("aaaaab", "aaa", "ab")
	f.Fuzz(func(t *testing.T, s, a, b string) {
		out := String(s, []string{a, b})
		for _, sec := range []string{a, b} {
			if sec == "" || strings.ContainsAny(sec, Marker) {
				continue
			}
			if strings.Contains(out, sec) {
				t.Fatalf("String(%q, %q, %q) = %q still holds %q", s, a, b, out, sec)
			}
		}
		if a == "" && b == "" && out != s {
			t.Fatalf("no secrets changed %q to %q", s, out)
		}
	})
}

// FuzzJSON: a string encoded as JSON and redacted still decodes, without
// the secret. Documents with escape sequences are skipped by the check (a
// secret of hex digits can match inside a \u escape), as are secrets
// sharing a character with the marker or with JSON's punctuation.
func FuzzJSON(f *testing.F) {
	f.Add(`say "hi" twice "hi"`, `"hi"`)
	f.Add(`C:\key\s3cret`, `\s3cret`)
	f.Fuzz(func(t *testing.T, s, sec string) {
		doc, _ := json.Marshal(map[string]string{"v": s})
		out := JSON(doc, []string{sec})
		// A secret that is not valid UTF-8 (a lone continuation byte) can
		// only "occur" inside another character: secrets come from JSON
		// strings and the environment, and the session log writes UTF-8.
		if sec == "" || !utf8.ValidString(sec) || strings.ContainsAny(sec, Marker+`{}:,"v`) || strings.Contains(string(doc), `\`) {
			return
		}
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("JSON(%s, %q) = %s: %v", doc, sec, out, err)
		}
		if strings.Contains(back["v"], sec) {
			t.Fatalf("JSON(%s, %q) = %s still holds %q", doc, sec, out, sec)
		}
	})
}

// FuzzCredentials: every value found is a substring of the text, and
// redacting the values leaves none of them behind.
func FuzzCredentials(f *testing.F) {
	f.Add("log in as admin with password hunter2-XYZ")
	f.Add("密码是qwe987，谢谢 Bearer abcdefgh123 key=Zq8rT2vLm9Xw4Kp7Yb3N")
	f.Add(`pw: "a b c" pw:pw:pw:`)
	f.Fuzz(func(t *testing.T, s string) {
		vals := Credentials(s)
		for _, v := range vals {
			if v == "" || !strings.Contains(s, v) {
				t.Fatalf("Credentials(%q) returned %q, not in the text", s, v)
			}
		}
		out := String(s, vals)
		for _, v := range vals {
			if !strings.ContainsAny(v, Marker) && strings.Contains(out, v) {
				t.Fatalf("String(%q) = %q still holds %q", s, out, v)
			}
		}
	})
}
