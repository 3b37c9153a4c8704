package runtime

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// MacroTest is one end-to-end test of a macro: a spec's `tests:` entry,
// compiled into the macro so that every binary serving it can run it (the
// `test` command). Run the macro with Args, then Check the outcome.
type MacroTest struct {
	// Name is unique among the macro's tests.
	Name string `json:"name"`
	// Args are the arguments, a JSON object.
	Args json.RawMessage `json:"args"`
	// Want checks result fields, in source order.
	Want []Want `json:"want,omitempty"`
	// WantError, when set, means the run must fail with an error whose text
	// contains it (and Want is empty).
	WantError string `json:"want_error,omitempty"`
	// Site names the live site the test runs against ("" when none): the
	// test needs {{ env.<SITE>_URL }} (see SiteEnv) to point at it.
	Site string `json:"site,omitempty"`
	// Fixture is the file holding the test's recorded HTTP exchanges,
	// relative to a fixtures directory: <macro>/<test slug>.jsonl. Empty
	// means FixtureName(macro, Name).
	Fixture string `json:"fixture,omitempty"`
}

// Want is one check of a result field: the field's value compared with Arg
// by Op (see Compare).
type Want struct {
	Field string          `json:"field"`
	Op    Op              `json:"op"`
	Arg   json.RawMessage `json:"arg"`
}

// SiteEnv is the environment variable that points a test at its site: the
// site's name upper-cased with _URL appended (demo -> DEMO_URL).
func SiteEnv(site string) string {
	if site == "" {
		return ""
	}
	return strings.ToUpper(site) + "_URL"
}

var slugRun = regexp.MustCompile(`[^a-z0-9]+`)

// TestSlug is the file-name form of a test name: lower case, runs of other
// characters as one '-', trimmed ("a fix: prefix" -> "a-fix-prefix"); "test"
// when nothing is left.
func TestSlug(name string) string {
	s := strings.Trim(slugRun.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		return "test"
	}
	return s
}

// FixtureName is the default fixture file of a macro's test,
// <macro>/<TestSlug(test)>.jsonl. (Generated code records the name, with a
// -2, -3, ... suffix when two tests of a macro share a slug.)
func FixtureName(macro, test string) string {
	return macro + "/" + TestSlug(test) + ".jsonl"
}

// FixturePath returns t.Fixture, or the default name when it is empty.
func (t *MacroTest) FixturePath(macro string) string {
	if t.Fixture != "" {
		return t.Fixture
	}
	return FixtureName(macro, t.Name)
}

// WantResult is the verdict of one Want.
type WantResult struct {
	Want
	// Got is the field's value (absent when the result lacks the field).
	Got json.RawMessage `json:"got,omitempty"`
	OK  bool            `json:"ok"`
	// Problem says why the comparison could not be made, when it could not.
	Problem string `json:"problem,omitempty"`
}

// TestVerdict is what Check found.
type TestVerdict struct {
	OK bool `json:"ok"`
	// Wants are the result checks (when the call succeeded).
	Wants []WantResult `json:"wants,omitempty"`
	// Problem says what went wrong beyond the wants: an unexpected error, an
	// expected error that did not happen, or one with other text.
	Problem string `json:"problem,omitempty"`
}

// Check judges a dispatched call's outcome against the test: WantError
// against the error's text, else success and every Want against the
// result's fields.
func (t *MacroTest) Check(o *Outcome) TestVerdict {
	if o == nil {
		return TestVerdict{Problem: "the macro did not run"}
	}
	if t.WantError != "" {
		switch {
		case o.OK:
			return TestVerdict{Problem: fmt.Sprintf("want an error containing %q, but the call succeeded with %s", t.WantError, Clip(string(o.Result), 300))}
		case !strings.Contains(o.Error.Error(), t.WantError):
			return TestVerdict{Problem: fmt.Sprintf("want an error containing %q, got %s", t.WantError, o.Error.Error())}
		}
		return TestVerdict{OK: true}
	}
	if !o.OK {
		return TestVerdict{Problem: "the call failed: " + o.Error.Error()}
	}
	v := TestVerdict{OK: true}
	var res map[string]json.RawMessage
	if len(t.Want) > 0 {
		if err := json.Unmarshal(o.Result, &res); err != nil {
			return TestVerdict{Problem: fmt.Sprintf("the result is not a JSON object: %s", Clip(string(o.Result), 300))}
		}
	}
	for _, w := range t.Want {
		wr := WantResult{Want: w}
		got, present := res[w.Field]
		if present {
			wr.Got = got
		}
		var gv, av any
		if err := decodeNumber(got, &gv); err != nil {
			wr.Problem = "the field is not JSON: " + err.Error()
		} else if err := decodeNumber(w.Arg, &av); err != nil {
			wr.Problem = "the operand is not JSON: " + err.Error()
		} else {
			ok, err := Compare(w.Op, gv, av)
			wr.OK = ok
			switch {
			case err != nil:
				wr.OK, wr.Problem = false, err.Error()
			case !ok && !present:
				wr.Problem = "the result has no field " + w.Field
			}
		}
		v.OK = v.OK && wr.OK
		v.Wants = append(v.Wants, wr)
	}
	return v
}

// decodeNumber decodes JSON keeping numbers exact (json.Number).
func decodeNumber(b json.RawMessage, v *any) error {
	if len(b) == 0 {
		*v = nil
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	return dec.Decode(v)
}
