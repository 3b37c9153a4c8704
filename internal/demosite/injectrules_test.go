package demosite

import (
	"strings"
	"testing"
)

func TestParseInjectRules(t *testing.T) {
	tests := []struct {
		in      []string
		want    string // the rules' String()s joined by spaces
		wantErr string
	}{
		{[]string{"flaky.example=flaky", "fake.example=fakeSuccess"}, "flaky.example=flaky fake.example=fakeSuccess", ""},
		{[]string{"@a.example=slow+flaky, b.example=error500"}, "a.example=slow+flaky b.example=error500", ""},
		{[]string{""}, "", ""},
		{[]string{"a.example"}, "", "want DOMAIN=MODES"},
		{[]string{"=flaky"}, "", "want DOMAIN=MODES"},
		{[]string{"a.example="}, "", "want DOMAIN=MODES"},
		{[]string{"a.example=flakey"}, "", `unknown mode "flakey"`},
		{[]string{"x@a.example=flaky"}, "", "want DOMAIN=MODES"},
	}
	for _, tc := range tests {
		got, err := ParseInjectRules(tc.in...)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseInjectRules(%q) error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		var s []string
		for _, r := range got {
			s = append(s, r.String())
		}
		if err != nil || strings.Join(s, " ") != tc.want {
			t.Errorf("ParseInjectRules(%q) = %q, %v; want %q", tc.in, s, err, tc.want)
		}
	}
}

// TestInjectRulesPerRecord: the rules pick each write's modes by the email
// it submits, so faked, failed and good records mix on one site, and the
// counters tell stores, fakes and conflicts apart.
func TestInjectRulesPerRecord(t *testing.T) {
	rules, err := ParseInjectRules("fake.example=fakeSuccess,flaky.example=flaky,broken.example=error500")
	if err != nil {
		t.Fatal(err)
	}
	s := newTestSite(t, Options{InjectRules: rules})
	tests := []struct {
		email  string
		code   int
		stored int
	}{
		{"ok1@good.example", 201, 1},
		{"f1@fake.example", 201, 0},
		{"F2@FAKE.example", 201, 0},           // domains compare case-insensitively
		{"x@sub.fake.example", 201, 1},        // no subdomains
		{"fl1@flaky.example", 201, 1},         // flaky is the page's; the API stores
		{"b1@broken.example", 500, 0},         // error500 by rule
		{"ok1@good.example", 409, 1},          // applied again: a conflict, still one
		{"fake.example@good.example", 201, 1}, // the domain is what follows the @
	}
	for _, tc := range tests {
		r := do(t, s, req{method: "POST", path: "/api/customers", body: `{"name":"N","email":"` + tc.email + `"}`})
		if r.code != tc.code {
			t.Errorf("%s: code %d, want %d: %s", tc.email, r.code, tc.code, r.body)
		}
		if n := s.CustomerCount(tc.email); n != tc.stored {
			t.Errorf("%s: stored %d times, want %d", tc.email, n, tc.stored)
		}
	}
	st := s.Stats()
	if st.CustomersCreated != 4 || st.CustomersFaked != 2 || st.CustomerConflicts != 1 {
		t.Errorf("stats %+v, want 4 created, 2 faked, 1 conflict", st)
	}
	// The body still reaches the handler whole after the rules read it.
	if r := do(t, s, req{method: "POST", path: "/api/customers", body: `{"name":""}`}); r.code != 400 || r.apiErr(t).Fields["name"] == "" {
		t.Errorf("validation after the rules: %d %s", r.code, r.body)
	}
	// Pages learn the rules, to apply them to their forms.
	if r := get(t, s, "/customers"); !strings.Contains(r.body, `data-inject-rules="fake.example=fakeSuccess flaky.example=flaky broken.example=error500"`) {
		t.Errorf("page stamp: %s", r.body[:200])
	}
	// Reset zeroes the counters.
	s.Reset()
	if st := s.Stats(); st.CustomersCreated != 0 || st.CustomersFaked != 0 {
		t.Errorf("after Reset: %+v", st)
	}
}
