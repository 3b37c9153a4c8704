package record

import (
	"errors"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/redact"
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

// regionPicks is a click on a multiple select (antd's mode="multiple")
// and a click on each option named.
func regionPicks(names ...string) []*engine.Recorded {
	acts := []*engine.Recorded{{Kind: "click", Target: &engine.Target{Label: "Regions"}, Combobox: true, URL: "http://site.test/x"}}
	for _, n := range names {
		acts = append(acts, &engine.Recorded{Kind: "click", Role: "option", Name: n, Target: &engine.Target{Role: "option", Name: n},
			Multiple: true, Options: []string{"North", "South", "East", "West"}, URL: "http://site.test/x"})
	}
	return acts
}

// cascade is a click on a cascader (antd's Cascader) and one on each
// level's entry, as the recorder reports them.
func cascade(levels ...string) []*engine.Recorded {
	acts := []*engine.Recorded{{Kind: "click", Target: &engine.Target{Label: "Location"}, Combobox: true, URL: "http://site.test/x"}}
	for _, l := range levels {
		acts = append(acts, &engine.Recorded{Kind: "click", Role: "menuitemcheckbox", Name: l, Level: true,
			Target: &engine.Target{Role: "menuitemcheckbox", Name: l + " right"}, URL: "http://site.test/x"})
	}
	return acts
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
		{name: "unknown parameter", acts: login(), opts: Options{URL: "http://site.test/login", Consts: []string{"usernme"}}, err: `no parameter "usernme" (did you mean username?)`},
		{name: "every unknown name at once", acts: login(), opts: Options{URL: "http://site.test/login", Consts: []string{"usernme"}, Secrets: []string{"token"}},
			err: `--const usernme: the recording has no parameter "usernme" (did you mean username?); --secret token: the recording has no parameter "token"`},
		{name: "a renamed parameter by its new name", acts: login(), opts: Options{URL: "http://site.test/login", Rename: map[string]string{"username": "login"}, Consts: []string{"login"}},
			want: []string{`fill: {target: {label: Username}, value: admin}`}, notWant: []string{"hunter2-secret", "{{ login }}"}},
		{name: "a secret is never a constant", acts: login(), opts: Options{URL: "http://site.test/login", Consts: []string{"password"}}, err: "never written"},
		{name: "consequential click, no effect seen", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{{Kind: "click", Target: &engine.Target{Role: "button", Name: "Delete account"}, URL: "http://site.test/x",
				Before: st("http://site.test/x", []string{"a"}, nil), After: st("http://site.test/x", []string{"a"}, nil),
				Requests: []engine.Request{{Method: "DELETE", URL: "http://site.test/api/account/7", Type: "Fetch", Status: 500, Done: true}}}},
			want: []string{"risk: dangerous", "unverified: macrokit record saw no change"}},
		{name: "enum by name when values differ", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{{Kind: "select", Target: &engine.Target{Label: "Plan"}, Value: "Team plan", Options: []string{"Basic plan", "Team plan"}, OptionValues: []string{"b", "t"}, URL: "http://site.test/x"}},
			want: []string{"plan: {type: string, enum: [Basic plan, Team plan]", "args: {plan: Team plan}"}},
		{name: "only some options seen: no enum", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{{Kind: "select", Target: &engine.Target{Label: "Country"}, Value: "Austria", Options: []string{"Argentina", "Austria"}, OptionsPartial: true, URL: "http://site.test/x"}},
			want: []string{"country: {type: string, minLength: 1", "args: {country: Austria}"}, notWant: []string{"enum"}},
		{name: "a pick is no secret whatever its autocomplete says", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{{Kind: "select", Target: &engine.Target{Label: "Customer"}, Value: "Globex", Autocomplete: "new-password", Options: []string{"Acme", "Globex"}, URL: "http://site.test/x"}},
			want: []string{"customer: {type: string, enum: [Acme, Globex]", "args: {customer: Globex}"}, notWant: []string{"secret"}},
		{name: "a multiple select's picks, one taken back, are one select of a list", opts: Options{URL: "http://site.test/x"},
			acts: regionPicks("North", "West", "East", "West"),
			want: []string{`select: {target: {label: Regions}, options: "{{ regions }}"}`, "required: [regions]",
				"regions: {type: array, items: {type: string, enum: [North, South, East, West]}, minItems: 1", "args: {regions: [North, East]}",
				"intent: sign in with regions", "say: sign in North and East"},
			notWant: []string{"click:"}},
		{name: "a multiple select opened again for each pick", opts: Options{URL: "http://site.test/x"},
			acts: func() []*engine.Recorded {
				a, b := regionPicks("North"), regionPicks("East")
				b[1].Options = []string{"South", "East", "West", "Central"} // North, chosen, is hidden
				return append(a, b...)
			}(),
			want: []string{`select: {target: {label: Regions}, options: "{{ regions }}"}`, "args: {regions: [North, East]}",
				"enum: [North, South, East, West, Central]"},
			notWant: []string{"click:", "regions_2"}},
		{name: "a cascader's levels are one select of a path", opts: Options{URL: "http://site.test/x"},
			acts: cascade("Zhejiang", "Hangzhou", "West Lake"),
			want: []string{`select: {target: {label: Location}, path: "{{ location }}"}`, "location: {type: array, items: {type: string}, minItems: 1",
				"args: {location: [Zhejiang, Hangzhou, West Lake]}", "say: sign in Zhejiang / Hangzhou / West Lake"},
			notWant: []string{"click:", "enum", "right"}},
		{name: "a cascader opened again: the last path", opts: Options{URL: "http://site.test/x"},
			acts:    append(cascade("Zhejiang", "Hangzhou"), cascade("Jiangsu", "Nanjing")...),
			want:    []string{"args: {location: [Jiangsu, Nanjing]}"},
			notWant: []string{"location_2", "Zhejiang"}},
		{name: "a cascader's path as a constant", opts: Options{URL: "http://site.test/x", Consts: []string{"location"}},
			acts: cascade("Jiangsu", "Nanjing"), want: []string{"select: {target: {label: Location}, path: [Jiangsu, Nanjing]}"}},
		{name: "a multiple select as a constant is its list", opts: Options{URL: "http://site.test/x", Consts: []string{"regions"}},
			acts: regionPicks("South", "East"), want: []string{"select: {target: {label: Regions}, options: [South, East]}"}, notWant: []string{"regions"}},
		{name: "a multiple select is no secret", opts: Options{URL: "http://site.test/x", Secrets: []string{"regions"}},
			acts: regionPicks("South"), err: "--secret regions: a list of options picked (a multiple select, a cascader's path) is shown on the page"},
		{name: "every pick taken back is no step", opts: Options{URL: "http://site.test/x"},
			acts: regionPicks("South", "South"), notWant: []string{"select:", "regions"}},
		{name: "a native multiple select keeps its last change", opts: Options{URL: "http://site.test/x"},
			acts: []*engine.Recorded{
				{Kind: "select", Target: &engine.Target{Label: "Days"}, Value: "Mon", Multiple: true, Values: []string{"Mon"}, Options: []string{"Mon", "Tue", "Wed"}, URL: "http://site.test/x"},
				{Kind: "select", Target: &engine.Target{Label: "Days"}, Value: "Mon", Multiple: true, Values: []string{"Mon", "Wed"}, Options: []string{"Mon", "Tue", "Wed"}, URL: "http://site.test/x"}},
			want: []string{`select: {target: {label: Days}, options: "{{ days }}"}`, "days: {type: array, items: {type: string, enum: [Mon, Tue, Wed]}", "args: {days: [Mon, Wed]}"}},
		{name: "a virtual multiple select's items are free text", opts: Options{URL: "http://site.test/x"},
			acts: func() []*engine.Recorded {
				acts := regionPicks("North")
				acts[1].OptionsPartial = true
				return acts
			}(),
			want: []string{"regions: {type: array, items: {type: string}, minItems: 1"}, notWant: []string{"enum"}},
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

func TestCheckOptions(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		err  string // "" passes
	}{
		{Options{Consts: []string{"user_name"}, Secrets: []string{"token"}, Rename: map[string]string{"email": "contact_email"}}, ""},
		{Options{Consts: []string{"Email"}}, "--const Email: a parameter name is snake_case, as record prints them (email)"},
		{Options{Secrets: []string{""}}, "--secret: needs a parameter name"},
		{Options{Rename: map[string]string{"email": "Contact"}}, "--param email=Contact: a parameter name is snake_case (contact)"},
		{Options{Consts: []string{"pin"}, Secrets: []string{"pin"}}, "a secret is never written"},
		{Options{Rename: map[string]string{"a": "x", "b": "x"}}, "two parameters would be named x"},
	} {
		err := CheckOptions(tc.opts)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckOptions(%+v) = %v, want %q", tc.opts, err, tc.err)
		}
	}
}

func TestCorrected(t *testing.T) {
	o := Options{Consts: []string{"usernme"}, Secrets: []string{"pasword"}, Rename: map[string]string{"emial": "contact"}}
	_, err := Build(append(login(), &engine.Recorded{Kind: "fill", Target: &engine.Target{Label: "Email"}, Value: "a@b.example", URL: "http://site.test/login"}),
		Options{Name: "x", URL: "http://site.test/login", Consts: o.Consts, Secrets: o.Secrets, Rename: o.Rename})
	var re *Error
	if !errors.As(err, &re) || len(re.Unknown) != 3 {
		t.Fatalf("err %v, want three unknown names", err)
	}
	fixed, all := Corrected(o, re.Unknown)
	if !all || fixed.Consts[0] != "username" || fixed.Secrets[0] != "password" || fixed.Rename["email"] != "contact" {
		t.Errorf("Corrected: %+v (all %v)", fixed, all)
	}
}

// pointedAt is a recorded save whose row the user then pointed at.
func pointedAt(text, value string, target engine.Target) []*engine.Recorded {
	return []*engine.Recorded{
		{Kind: "fill", Target: &engine.Target{Label: "Name"}, Value: "Ada Lovelace", URL: "http://site.test/c"},
		{Kind: "fill", Target: &engine.Target{Label: "Token"}, Value: "tok-55-secret", URL: "http://site.test/c"},
		{Kind: "click", Target: &engine.Target{Role: "button", Name: "Save"}, URL: "http://site.test/c",
			Before: st("http://site.test/c", []string{"Customers"}, nil), After: st("http://site.test/c", []string{"Customers", "Ada Lovelace"}, nil),
			Requests: []engine.Request{{Method: "POST", URL: "http://site.test/api/c", Type: "Fetch", Status: 201, Done: true}}},
		{Kind: "assert", Target: &target, Text: text, Value: value, URL: "http://site.test/c"},
	}
}

func TestPointedCheck(t *testing.T) {
	cell := engine.Target{Role: "rowheader", Name: "Ada Lovelace"}
	long := strings.Repeat("a long text ", 10)
	for _, tc := range []struct {
		name    string
		acts    []*engine.Recorded
		secrets []string
		want    string
		notWant string
	}{
		{"text within the element, as the parameter", pointedAt("Ada Lovelace", "", cell), nil,
			`text_present: {text: "{{ name }}", within: {role: rowheader, name: "{{ name }}"}}`, "element_exists: {role: rowheader"},
		{"a word inside another is not the parameter", pointedAt("Ada Lovelaces 2", "", engine.Target{TestID: "summary"}), nil,
			`text_present: {text: Ada Lovelaces 2, within: {testid: summary}}`, "{{ name }}s"},
		{"a text target says where", pointedAt("Saved", "", engine.Target{Text: "Saved"}), nil, "- text_present: Saved", "within"},
		{"a field's value", pointedAt("", "Ada Lovelace", engine.Target{Label: "Display name"}), nil,
			`value_equals: {target: {label: Display name}, value: "{{ name }}"}`, ""},
		{"a secret's text is never written", pointedAt("token tok-55-secret", "", engine.Target{TestID: "tok"}), []string{"token"},
			"element_exists: {testid: tok}", "tok-55-secret"},
		{"a secret's value is never written", pointedAt("", "tok-55-secret", engine.Target{Label: "Token copy"}), []string{"token"},
			"element_exists: {label: Token copy}", "tok-55-secret"},
		{"a long text: that it exists", pointedAt(long, "", engine.Target{TestID: "card"}), nil, "element_exists: {testid: card}", "a long text"},
		{"no text: that it exists", pointedAt("", "", engine.Target{Role: "img", Name: "Logo"}), nil, "element_exists: {role: img, name: Logo}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Build(tc.acts, Options{Name: "add", URL: "http://site.test/c", Secrets: tc.secrets})
			if err != nil {
				t.Fatal(err)
			}
			data, err := m.YAML()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.want) || (tc.notWant != "" && strings.Contains(string(data), tc.notWant)) {
				t.Errorf("want %q, not %q:\n%s", tc.want, tc.notWant, data)
			}
		})
	}
}

// TestKeep: a kept recording holds no secret value — password fields,
// --secret names, and what a mistyped --secret most likely meant — and
// builds the same spec again, its withheld values as secrets.
func TestKeep(t *testing.T) {
	acts := pointedAt("Ada Lovelace", "", engine.Target{Role: "rowheader", Name: "Ada Lovelace"})
	acts = append(login(), acts...)
	acts[5].After.Lines = append(acts[5].After.Lines, "token tok-55-secret shown once")
	for _, tc := range []struct {
		name     string
		secrets  []string
		withheld []string
	}{
		{"password only", nil, []string{"password"}},
		{"a mistyped --secret withholds the nearest", []string{"tokn"}, []string{"password", "token"}},
		{"a --secret naming nothing near withholds every typed value", []string{"zzz"}, []string{"username", "password", "name", "token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Name: "add", URL: "http://site.test/login", Landed: "http://site.test/login", Secrets: tc.secrets}
			data, err := Keep(acts, o)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "hunter2-secret") {
				t.Errorf("the kept recording holds the password:\n%s", data)
			}
			if len(tc.withheld) > 2 && strings.Contains(string(data), "tok-55-secret") {
				t.Errorf("the kept recording holds the token a --secret may have meant:\n%s", data)
			}
			back, ko, err := ReadKept(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != len(acts) || ko.URL != o.URL || back[5].After == nil || len(back[5].Requests) != 1 {
				t.Fatalf("read back %d actions, %+v", len(back), ko)
			}
			m, err := Build(back, Options{Name: "add", URL: ko.URL, Landed: ko.Landed})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Withheld(); strings.Join(got, ",") != strings.Join(tc.withheld, ",") {
				t.Errorf("withheld %v, want %v", got, tc.withheld)
			}
			y, _ := m.YAML()
			held := strings.Contains(string(y), redact.Marker)
			if !strings.Contains(string(y), "request_succeeded: {url: /api/c, method: POST}") || held != strings.Contains(string(y), "# REVIEW: steps[6] names an element by a value the kept recording withheld") {
				t.Errorf("rebuilt spec:\n%s", y)
			}
		})
	}
	if _, _, err := ReadKept([]byte(`{"macrokit_recording": 9}`)); err == nil {
		t.Error("another version read")
	}
}

// TestKeepPicks: a kept recording of widget picks (a multiple select, a
// cascader's path) builds the same spec again.
func TestKeepPicks(t *testing.T) {
	acts := append(regionPicks("North", "East"), cascade("Jiangsu", "Nanjing")...)
	o := Options{Name: "pick", URL: "http://site.test/x"}
	m, err := Build(acts, o)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.YAML()
	data, err := Keep(acts, o)
	if err != nil {
		t.Fatal(err)
	}
	back, ko, err := ReadKept(data)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Build(back, Options{Name: "pick", URL: ko.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := m2.YAML()
	if string(got) != string(want) {
		t.Errorf("rebuilt:\n%s\nwant:\n%s", got, want)
	}
	for _, s := range []string{`options: "{{ regions }}"`, `path: "{{ location }}"`} {
		if !strings.Contains(string(got), s) {
			t.Errorf("rebuilt spec lacks %s:\n%s", s, got)
		}
	}
}
