package redact

import (
	"reflect"
	"strings"
	"testing"
)

func TestCredentials(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"english", "log in as admin with password hunter2-XYZ", []string{"hunter2-XYZ"}},
		{"english copula", "my password is Tr0ub4dor&3.", []string{"Tr0ub4dor&3"}},
		{"pw colon", "user bob, pw: plainword", []string{"plainword"}},
		{"quoted", `password "correct horse battery"`, []string{"correct horse battery"}},
		{"german", "melde mich an, Passwort geheim-42", []string{"geheim-42"}},
		{"german copula", "das Kennwort ist Sommer2024!", []string{"Sommer2024!"}},
		{"french", "connecte-moi avec le mot de passe soleil#9", []string{"soleil#9"}},
		{"spanish", "entra con la contraseña gato_77", []string{"gato_77"}},
		{"chinese spaced", "用户 admin 密码 abc123xyz", []string{"abc123xyz"}},
		{"chinese copula", "密码是qwe987，谢谢", []string{"qwe987"}},
		{"chinese colon", "密码：zxc-555。", []string{"zxc-555"}},
		{"token colon", "use token: tok_abcdef123", []string{"tok_abcdef123"}},
		{"bearer", "send Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload", []string{"eyJhbGciOiJIUzI1NiJ9.payload"}},
		{"openai key", "my key sk-proj1234567890abcdefXYZ works", []string{"sk-proj1234567890abcdefXYZ"}},
		{"github token", "GITHUB_TOKEN ghp_abcdefghijklmnopqrstuvwxyz0123", []string{"ghp_abcdefghijklmnopqrstuvwxyz0123"}},
		{"aws key", "id AKIAIOSFODNN7EXAMPLE here", []string{"AKIAIOSFODNN7EXAMPLE"}},
		{"slack token", "xoxb-1234567890-abcdefghij", []string{"xoxb-1234567890-abcdefghij"}},
		{"key assignment", "call https://x.example/?key=Zq8rT2vLm9Xw4Kp7Yb3N&x=1", []string{"Zq8rT2vLm9Xw4Kp7Yb3N"}},
		{"key assignment low entropy", "sort key=aaaaaaaaaaaaaaaaaaaa", nil},
		{"two values once each", "password hunter2! and again password hunter2!", []string{"hunter2!"}},
		{"no credential", "find ada lovelace", nil},
		{"plain word after bare keyword", "reset the password for bob", nil},
		{"password manager", "open the password manager", nil},
		{"keyword inside a word", "pwned and passwordless", nil},
		{"keyword at the end", "I forgot my password", nil},
		{"placeholder is not a value", "log in with password [secret-1]", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Credentials(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Credentials(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// TestCredentialsLinear: a text built to make a naive scanner rescan
// (keywords and separators repeated) is read in one pass: the work is
// bounded by counting the values it returns (a rescan would return one
// value per keyword). The regular expressions are RE2: linear.
func TestCredentialsLinear(t *testing.T) {
	for _, unit := range []string{"pw:", "password ", "密码", "key=", "Bearer ", "\"password \""} {
		text := strings.Repeat(unit, (64<<10)/len(unit))
		got := Credentials(text)
		if len(got) > 2 {
			t.Errorf("%q repeated: %d values, want at most 2 (one run)", unit, len(got))
		}
	}
}
