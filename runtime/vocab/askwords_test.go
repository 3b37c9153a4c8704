package vocab

import (
	"strings"
	"testing"
)

func TestAskWords(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Apply", "apply"},
		{"Don't just dry-run!", "don t just dry run"},
		{"close them FOR REAL", "close them for real"},
		{"max 1,000", "max 1 000"},
		{"", ""},
		{"  --  ", ""},
	}
	for _, tc := range cases {
		if got := strings.Join(AskWords(tc.in), " "); got != tc.want {
			t.Errorf("AskWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNameWords(t *testing.T) {
	cases := []struct{ in, want string }{
		{"apply", "apply"},
		{"deleteBranch", "delete branch"},
		{"delete_branch", "delete branch"},
		{"maxChars", "max chars"},
		{"runID", "run id"},
		{"max2Pages", "max2 pages"},
	}
	for _, tc := range cases {
		if got := NameWords(tc.in); got != tc.want {
			t.Errorf("NameWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
