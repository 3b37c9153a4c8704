package record

import (
	"errors"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
)

func st(url string, lines []string, counts map[string]int) *engine.RecordState {
	return &engine.RecordState{URL: url, Lines: lines, Counts: counts, Depths: map[string]int{}}
}

// withValues gives a state its controls' values: label, value pairs.
func withValues(s *engine.RecordState, kv ...string) *engine.RecordState {
	for i := 0; i+1 < len(kv); i += 2 {
		s.Values = append(s.Values, engine.RecordValue{Target: engine.Target{Label: kv[i]}, Value: kv[i+1]})
	}
	return s
}

// login is a recorded sign-in: a user name, a password, a submit that
// posts and goes to another page.
func login() []*engine.Recorded {
	before := st("http://site.test/login", []string{"Sign in"}, nil)
	return []*engine.Recorded{
		{Kind: "fill", Target: &engine.Target{Label: "Username"}, How: "label", Value: "admin", URL: before.URL},
		{Kind: "fill", Target: &engine.Target{Label: "Password"}, How: "label", Type: "password", Value: "hunter2-secret", URL: before.URL},
		{Kind: "click", Target: &engine.Target{Role: "button", Name: "Sign in"}, How: "role", URL: before.URL, Before: before,
			After:    st("http://site.test/customers", []string{"Customers", "Signed in as admin"}, nil),
			Requests: []engine.Request{{Method: "POST", URL: "http://site.test/api/login", Type: "Fetch", Status: 200, Done: true}}},
	}
}

func TestBuild(t *testing.T) {
	cases := []struct {
		name    string
		acts    []*engine.Recorded
		opts    Options
		want    []string // substrings of the YAML
		notWant []string
		err     string
	}{
		{name: "secret password, url and request checks", acts: login(),
			opts: Options{URL: "http://site.test/login", Landed: "http://site.test/login", Env: []EnvBase{{Name: "SITE_URL", URL: "http://site.test"}}},
			want: []string{`goto: "{{ env.SITE_URL }}/login"`, "required: [username]", "password: {type: string, secret: true",
				`fill: {target: {label: Password}, value: "{{ password }}"}`, "url_matches: /customers", "request_succeeded: {url: /api/login, method: POST}",
				"# REVIEW: password is a secret", "risk: act", "args: {username: admin}"},
			notWant: []string{"hunter2-secret", "http://site.test"}},
		{name: "const and rename", acts: login(), opts: Options{URL: "http://site.test/login", Consts: []string{"username"}, Rename: map[string]string{"password": "pass"}},
			want:    []string{`fill: {target: {label: Username}, value: admin}`, `value: "{{ pass }}"`},
			notWant: []string{"hunter2-secret", "{{ username }}"}},
		{name: "unknown parameter", acts: login(), opts: Options{URL: "http://site.test/login", Consts: []string{"usernme"}}, err: `no parameter "usernme"`},
		{name: "a secret is never a constant", acts: login(), opts: Options{URL: "http://site.test/login", Consts: []string{"password"}}, err: "never written"},
		{name: "consequential click, no effect seen", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{{Kind: "click", Target: &engine.Target{Role: "button", Name: "Delete account"}, URL: "http://site.test/x",
				Before: st("http://site.test/x", []string{"a"}, nil), After: st("http://site.test/x", []string{"a"}, nil),
				Requests: []engine.Request{{Method: "DELETE", URL: "http://site.test/api/account/7", Type: "Fetch", Status: 500, Done: true}}}},
			want: []string{"risk: dangerous", "unverified: macrokit record saw no change"}},
		{name: "enum by name when values differ", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{{Kind: "select", Target: &engine.Target{Label: "Plan"}, Value: "Team plan", Options: []string{"Basic plan", "Team plan"}, OptionValues: []string{"b", "t"}, URL: "http://site.test/x"}},
			want: []string{"plan: {type: string, enum: [Basic plan, Team plan]", "args: {plan: Team plan}"}},
		{name: "constant text when nothing else shows the effect", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{{Kind: "click", Target: &engine.Target{Role: "button", Name: "Show details"}, URL: "http://site.test/x",
				Before: st("http://site.test/x", []string{"Order"}, nil), After: st("http://site.test/x", []string{"Order", "Shipped to Lisbon", "Details for this order"}, nil)}},
			want: []string{"expect: [{text_present: Shipped to Lisbon}]", "risk: read"}},
		{name: "a value another control took", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{{Kind: "select", Target: &engine.Target{Label: "Country"}, Value: "Portugal", Options: []string{"Spain", "Portugal"}, URL: "http://site.test/x",
				Before: withValues(st("http://site.test/x", []string{"Checkout"}, nil), "Country", "Spain", "Currency", "EUR", "Card", "4111"),
				After:  withValues(st("http://site.test/x", []string{"Checkout"}, nil), "Country", "Portugal", "Currency", "EUR (Portugal)", "Card", "")}},
			want:    []string{"value_equals: {target: {label: Currency}, value: EUR (Portugal)}"},
			notWant: []string{"{label: Country}, value:", "{label: Card}, value:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Name = "sign_in"
			m, err := Build(tc.acts, tc.opts)
			if tc.err != "" {
				var re *Error
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want a *record.Error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := m.YAML()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(data), w) {
					t.Errorf("lacks %q:\n%s", w, data)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(string(data), w) {
					t.Errorf("holds %q:\n%s", w, data)
				}
			}
		})
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"User name": "user_name", "Email": "email", "firstName": "first_name", "E-mail address": "e_mail_address",
		"2FA code": "value_2fa_code", "env": "env_value", "": "value"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
