package terms

import (
	"strings"
	"testing"
)

func TestStem(t *testing.T) {
	cases := []struct{ in, want string }{
		{"close", "clos"}, {"closes", "clos"}, {"closed", "clos"}, {"closing", "clos"},
		{"issue", "issu"}, {"issues", "issu"}, {"queries", "query"}, {"replied", "reply"},
		{"running", "run"}, {"tagged", "tag"}, {"installed", "install"}, {"boxes", "box"},
		{"matches", "match"}, {"status", "status"}, {"access", "access"}, {"need", "need"},
		{"speed", "speed"}, {"settings", "set"}, {"free", "free"}, {"pr", "pr"}, {"log", "log"}, {"who", "who"},
	}
	for _, tc := range cases {
		if got := string(Stem([]byte(tc.in))); got != tc.want {
			t.Errorf("Stem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScanTerms(t *testing.T) {
	cases := []struct {
		in    string
		camel bool
		want  string
	}{
		{"triage_pull_request", false, "triag pull request"},
		{"Close the stale issues in acme/widgets!", false, "clos stal issu acm widget"},
		{"minDaysOpen", true, "min day open"},
		{"minDaysOpen", false, "mindaysopen"},
		{"triage PR #1234 in microsoft/vscode", false, "triag pr microsoft vscod"},
		{"v2 of the repo, 42 x", false, "v2 repo"},
		{"Größe ÄNDERN", false, "größ ändern"},
		{"", false, ""},
	}
	for _, tc := range cases {
		var sc Scanner
		var got []string
		sc.Scan(tc.in, tc.camel, func(b []byte) { got = append(got, string(b)) })
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("scan(%q, %v) = %q, want %q", tc.in, tc.camel, s, tc.want)
		}
	}
}

func TestList(t *testing.T) {
	cases := []struct {
		in    string
		camel bool
		want  string
	}{
		{"search the customers by their name or email", false, "search customer nam email"},
		{"maxComments", true, "max comment"},
		{"the of and", false, ""},
	}
	for _, tc := range cases {
		if s := strings.Join(List(tc.in, tc.camel), " "); s != tc.want {
			t.Errorf("List(%q, %v) = %q, want %q", tc.in, tc.camel, s, tc.want)
		}
	}
}
