package refdata_test

import (
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

func TestParseVersion(t *testing.T) {
	for _, ok := range []string{"0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7", "1.0.0-x.7.z.92", "1.0.0-x-y-z.--"} {
		v, err := refdata.ParseVersion(ok)
		if err != nil {
			t.Errorf("%s: %v", ok, err)
		} else if v.String() != ok {
			t.Errorf("%s round-trips as %s", ok, v)
		}
	}
	for _, bad := range []string{"", "1", "1.2", "1.2.3.4", "v1.2.3", "01.2.3", "1.02.3", "1.2.3-", "1.2.3-01", "1.2.3-a..b", "1.2.3+build", "1.2.3-a_b", "a.b.c", "-1.2.3", "99999999999999999999.0.0"} {
		if _, err := refdata.ParseVersion(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestVersionOrder(t *testing.T) {
	// semver.org's precedence example, ascending.
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0", "10.0.0"}
	for i := range order {
		for j := range order {
			a, b := mustVersion(t, order[i]), mustVersion(t, order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("%s vs %s: %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func mustVersion(t testing.TB, s string) refdata.Version {
	t.Helper()
	v, err := refdata.ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRange(t *testing.T) {
	cases := []struct {
		rng   string
		in    []string
		notIn []string
	}{
		{"1.2.3", []string{"1.2.3"}, []string{"1.2.4", "1.2.3-rc.1"}},
		{"=1.2.3", []string{"1.2.3"}, []string{"1.2.2"}},
		{"v1.2.3", []string{"1.2.3"}, []string{"1.3.0"}},
		{"^1.2.3", []string{"1.2.3", "1.9.9"}, []string{"1.2.2", "2.0.0", "2.0.0-rc.1", "1.3.0-beta"}},
		{"^0.2.3", []string{"0.2.3", "0.2.9"}, []string{"0.3.0", "0.2.2"}},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4", "0.0.2"}},
		{"^1.2", []string{"1.2.0", "1.5.0"}, []string{"2.0.0", "1.1.9"}},
		{"^0.2", []string{"0.2.0", "0.2.7"}, []string{"0.3.0"}},
		{"^0.0", []string{"0.0.0", "0.0.9"}, []string{"0.1.0"}},
		{"^1", []string{"1.0.0", "1.99.0"}, []string{"2.0.0", "0.9.0"}},
		{"^1.2.3-beta.2", []string{"1.2.3-beta.2", "1.2.3-beta.4", "1.2.3", "1.3.0"}, []string{"1.2.3-beta.1", "1.2.4-beta.1", "2.0.0"}},
		{"~1.2.3", []string{"1.2.3", "1.2.9"}, []string{"1.3.0", "1.2.2"}},
		{"~1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}},
		{"~1", []string{"1.0.0", "1.9.0"}, []string{"2.0.0"}},
		{"~0.2.3", []string{"0.2.3", "0.2.8"}, []string{"0.3.0"}},
		{">=1.2.3", []string{"1.2.3", "5.0.0"}, []string{"1.2.2", "1.2.3-rc.1", "6.0.0-rc.1"}},
		{">1.2.3", []string{"1.2.4"}, []string{"1.2.3"}},
		{"<1.2.3", []string{"1.2.2", "0.0.1"}, []string{"1.2.3", "1.2.3-rc.1"}},
		{"<=1.2.3", []string{"1.2.3", "1.0.0"}, []string{"1.2.4"}},
		{">=1.2", []string{"1.2.0"}, []string{"1.1.9"}},
		{">1.2", []string{"1.3.0"}, []string{"1.2.9"}},
		{"<1.2", []string{"1.1.9"}, []string{"1.2.0"}},
		{"<=1.2", []string{"1.2.9"}, []string{"1.3.0"}},
		{">= 1.2.0 < 1.5.0", []string{"1.2.0", "1.4.9"}, []string{"1.5.0", "1.1.0"}},
		{">=1.2.0 <1.5.0", []string{"1.4.0"}, []string{"1.5.0"}},
		{"1.x", []string{"1.0.0", "1.9.9"}, []string{"2.0.0"}},
		{"1.2.x", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}},
		{"1.2.*", []string{"1.2.5"}, []string{"1.3.0"}},
		{"1.X", []string{"1.5.0"}, []string{"0.5.0"}},
		{"1", []string{"1.5.0"}, []string{"2.0.0"}},
		{"1.2", []string{"1.2.5"}, []string{"1.3.0"}},
		{"*", []string{"0.0.0", "9.9.9"}, []string{"1.0.0-rc.1"}},
		{"x", []string{"3.0.0"}, nil},
		{"^1 || ^3", []string{"1.5.0", "3.1.0"}, []string{"2.0.0"}},
		{"<1.0.0 || >=2.0.0 <2.1.0", []string{"0.5.0", "2.0.5"}, []string{"1.5.0", "2.1.0"}},
		{"1.2.3-rc.1", []string{"1.2.3-rc.1"}, []string{"1.2.3"}},
		{">*", nil, []string{"0.0.0", "1.0.0"}},
	}
	for _, tc := range cases {
		r, err := refdata.ParseRange(tc.rng)
		if err != nil {
			t.Errorf("%q: %v", tc.rng, err)
			continue
		}
		for _, v := range tc.in {
			if !r.Match(mustVersion(t, v)) {
				t.Errorf("%q should match %s", tc.rng, v)
			}
		}
		for _, v := range tc.notIn {
			if r.Match(mustVersion(t, v)) {
				t.Errorf("%q should not match %s", tc.rng, v)
			}
		}
	}
}

func TestParseRangeErrors(t *testing.T) {
	for _, bad := range []string{"", "  ", "||", "^1 ||", ">=", "1.2.3 - 2.0.0", "1.x.3", "01.2", "^1.2.3+b", "~>1.2", "1.2.3.4", "abc", "1.2-rc"} {
		if _, err := refdata.ParseRange(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"^1.2.3", "~1.2", ">=1 <2 || 3.x", "*", "1.2.3-rc.1"} {
		f.Add(s, "1.2.3")
	}
	f.Fuzz(func(t *testing.T, rng, ver string) {
		r, err := refdata.ParseRange(rng)
		if err != nil {
			return
		}
		if r.String() != strings.TrimSpace(rng) {
			t.Fatalf("String %q, want %q", r.String(), rng)
		}
		if v, err := refdata.ParseVersion(ver); err == nil {
			r.Match(v)
		}
	})
}
