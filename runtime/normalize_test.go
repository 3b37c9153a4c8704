package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestNormalizeArgs(t *testing.T) {
	m := &Macro{Name: "n", Risk: RiskRead, Handler: func(context.Context, *Exec, json.RawMessage) (any, error) { return nil, nil },
		Params: json.RawMessage(`{"type":"object","properties":{
			"owner":{"type":"string"},"number":{"type":"integer"},"ratio":{"type":"number"},"apply":{"type":"boolean"},
			"labels":{"type":"array","items":{"type":"string"}},"opts":{"type":"object","properties":{"n":{"type":"integer"}}}}}`)}
	if _, err := NewRegistry(m); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in, want string
		repairs        int
	}{
		{"clean input untouched", `{"owner":"a","number":5}`, `{"owner":"a","number":5}`, 0},
		{"null dropped", `{"owner":"a","number":null}`, `{"owner":"a"}`, 1},
		{"numeric string", `{"number":"42","ratio":"0.5"}`, `{"number":42,"ratio":0.5}`, 2},
		{"plus sign", `{"number":"+7"}`, `{"number":7}`, 1},
		{"integral float", `{"number":5.0}`, `{"number":5}`, 1},
		{"fraction stays for validation", `{"number":5.5}`, `{"number":5.5}`, 0},
		{"bool string", `{"apply":"False"}`, `{"apply":false}`, 1},
		{"json string array", `{"labels":"[\"bug\", \"x\"]"}`, `{"labels":["bug","x"]}`, 1},
		{"placeholder for a number", `{"number":"<nil>"}`, `{}`, 1},
		{"placeholder for a string", `{"owner":"<owner>"}`, `{}`, 1},
		{"a real string that says null stays", `{"owner":"null"}`, `{"owner":"null"}`, 0},
		{"unknown keys are kept", `{"maxDaysOpen":180}`, `{"maxDaysOpen":180}`, 0},
		{"word for a number stays", `{"number":"twenty"}`, `{"number":"twenty"}`, 0},
		{"nested", `{"opts":{"n":"3"}}`, `{"opts":{"n":3}}`, 1},
		{"not an object", `[1]`, `[1]`, 0},
		{"huge integer stays a string", `{"number":"123456789012345678901234"}`, `{"number":"123456789012345678901234"}`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, reps := m.NormalizeArgs(json.RawMessage(tc.in))
			if !sameJSON(out, tc.want) {
				t.Errorf("got %s, want %s", out, tc.want)
			}
			if len(reps) != tc.repairs {
				t.Errorf("repairs %v, want %d", reps, tc.repairs)
			}
		})
	}
}

// sameJSON reports whether two JSON texts encode the same value.
func sameJSON(got json.RawMessage, want string) bool {
	var a, b any
	_ = json.Unmarshal(got, &a)
	_ = json.Unmarshal([]byte(want), &b)
	ga, _ := json.Marshal(a)
	gb, _ := json.Marshal(b)
	return string(ga) == string(gb)
}

// TestNormalizeSplits: a composite value in one parameter is taken apart
// only when that parameter rejects it, the pattern matches all of it, and
// no other argument says something different.
func TestNormalizeSplits(t *testing.T) {
	m := &Macro{Name: "s", Risk: RiskRead, Handler: func(context.Context, *Exec, json.RawMessage) (any, error) { return nil, nil },
		Params: json.RawMessage(`{"type":"object","required":["owner","repo","number"],"properties":{
			"owner":{"type":"string","minLength":1,"pattern":"^[A-Za-z0-9-]+$"},
			"repo":{"type":"string","minLength":1,"pattern":"^[A-Za-z0-9._-]+$"},
			"number":{"type":"integer","minimum":1}}}`),
		Splits: []ArgSplit{{Param: "repo", Pattern: `^(?P<owner>[A-Za-z0-9-]+)/(?P<repo>[A-Za-z0-9._-]+)(?:#(?P<number>[0-9]+))?$`}}}
	if _, err := NewRegistry(m); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in, want string
		split          bool
	}{
		{"owner missing", `{"repo":"nodejs/node","number":88}`, `{"owner":"nodejs","repo":"node","number":88}`, true},
		{"owner empty", `{"owner":"","repo":"vercel/next.js","number":12}`, `{"owner":"vercel","repo":"next.js","number":12}`, true},
		{"owner repeated", `{"owner":"nodejs","repo":"nodejs/node","number":1}`, `{"owner":"nodejs","repo":"node","number":1}`, true},
		{"number from the value too", `{"repo":"golang/go#42"}`, `{"owner":"golang","repo":"go","number":42}`, true},
		{"number as given agrees", `{"repo":"golang/go#42","number":"42"}`, `{"owner":"golang","repo":"go","number":42}`, true},
		{"owner contradicts: left for validation", `{"owner":"microsoft","repo":"nodejs/node","number":1}`, `{"owner":"microsoft","repo":"nodejs/node","number":1}`, false},
		{"number contradicts", `{"repo":"golang/go#42","number":7}`, `{"repo":"golang/go#42","number":7}`, false},
		{"a valid repo is never split", `{"owner":"a","repo":"node","number":1}`, `{"owner":"a","repo":"node","number":1}`, false},
		{"no full match", `{"repo":"a/b/c","number":1}`, `{"repo":"a/b/c","number":1}`, false},
		{"not a string", `{"repo":5,"number":1}`, `{"repo":5,"number":1}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, reps := m.NormalizeArgs(json.RawMessage(tc.in))
			if !sameJSON(out, tc.want) {
				t.Errorf("got %s, want %s", out, tc.want)
			}
			split := false
			for _, r := range reps {
				if r.Kind == "split" {
					split = true
					if r.Pointer != "/repo" {
						t.Errorf("repair %+v", r)
					}
				}
			}
			if split != tc.split {
				t.Errorf("split = %v, want %v (repairs %v)", split, tc.split, reps)
			}
			if tc.split {
				if _, cerr := m.Validate(out); cerr != nil {
					t.Errorf("split arguments do not validate: %v", cerr)
				}
			}
		})
	}
	// A split that names no parameter is refused when the macro registers.
	bad := &Macro{Name: "b", Risk: RiskRead, Handler: m.Handler, Params: m.Params, Splits: []ArgSplit{{Param: "repo", Pattern: `^(?P<ownr>.+)$`}}}
	if _, err := NewRegistry(bad); err == nil || !strings.Contains(err.Error(), `group "ownr" names no parameter`) {
		t.Errorf("registering a bad split: %v", err)
	}
}

// FuzzNormalizeArgs: any input gives valid JSON back, a split never
// invents text (every value it sets is a piece of the value it split), and
// normalizing twice changes nothing more.
func FuzzNormalizeArgs(f *testing.F) {
	m := &Macro{Name: "f", Risk: RiskRead, Handler: func(context.Context, *Exec, json.RawMessage) (any, error) { return nil, nil },
		Params: json.RawMessage(`{"type":"object","properties":{
			"owner":{"type":"string","pattern":"^[a-z-]+$"},"repo":{"type":"string","pattern":"^[a-z.]+$"},
			"number":{"type":"integer"},"apply":{"type":"boolean"},"labels":{"type":"array","items":{"type":"string"}}}}`),
		Splits: []ArgSplit{{Param: "repo", Pattern: `^(?P<owner>[a-z-]+)/(?P<repo>[a-z.]+)(?:#(?P<number>[0-9]+))?$`}}}
	if _, err := NewRegistry(m); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"repo":"a/b"}`, `{"owner":"","repo":"a/b#12","number":"12"}`, `{"number":null,"apply":"true"}`, `{"labels":"[\"x\"]"}`, `[]`, `{"repo":"a/b","owner":"c"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, reps := m.NormalizeArgs(json.RawMessage(in))
		if len(reps) == 0 {
			if string(out) != in {
				t.Fatalf("no repairs but %q became %q", in, out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q gave invalid JSON %q", in, out)
		}
		for _, r := range reps {
			if r.Kind != "split" {
				continue
			}
			whole, _ := r.From.(map[string]any)["repo"].(string)
			for _, v := range r.To.(map[string]any) {
				if s := strings.TrimSpace(fmt.Sprint(v)); !strings.Contains(whole, s) {
					t.Fatalf("split of %q set %q, which is not part of it", whole, s)
				}
			}
		}
		again, reps2 := m.NormalizeArgs(out)
		if len(reps2) != 0 {
			t.Fatalf("normalizing %q again repaired %v (%q -> %q)", out, reps2, out, again)
		}
	})
}
