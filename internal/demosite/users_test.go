package demosite

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

func TestParseUsers(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]string
	}{
		{"alice:a-pw,bob:b-pw", map[string]string{"alice": "a-pw", "bob": "b-pw"}},
		{" alice : a:pw:with:colons ", map[string]string{"alice": "a:pw:with:colons"}},
		{"", nil},
		{"alice", nil},
		{"alice:", nil},
		{":pw", nil},
		{"alice:a,,bob:b", nil},
		{"alice:a,alice:b", nil},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseUsers(tc.in)
			if tc.want == nil {
				if !errors.Is(err, ErrBadUsers) {
					t.Fatalf("err %v, want ErrBadUsers", err)
				}
				if pw := strings.SplitN(tc.in, ":", 2); len(pw) == 2 && len(pw[1]) > 1 && strings.Contains(err.Error(), pw[1]) {
					t.Errorf("error repeats a password: %v", err)
				}
				return
			}
			if err != nil || !maps.Equal(got, tc.want) {
				t.Fatalf("%v %v, want %v", got, err, tc.want)
			}
		})
	}
}
