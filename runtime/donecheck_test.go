package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestCheckDone: the effect counts as there or absent only on a passed
// check whose result answers; everything else proves nothing.
func TestCheckDone(t *testing.T) {
	stored := map[string]bool{"ada@example.com": true}
	var looked []string
	find := &Macro{
		Name: "find", Risk: RiskRead,
		Params: json.RawMessage(`{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}`),
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			var a struct{ Q string }
			_ = json.Unmarshal(args, &a)
			looked = append(looked, a.Q)
			switch a.Q {
			case "down@example.com":
				return nil, errors.New("the site is down")
			case "odd@example.com":
				return map[string]any{"total": 1}, nil
			}
			n := 0
			if stored[a.Q] {
				n = 1
			}
			return map[string]any{"count": n}, nil
		},
	}
	writer := &Macro{Name: "write", Risk: RiskAct, Handler: find.Handler}
	add := func(check *DoneCheck) *Macro {
		return &Macro{
			Name: "add", Risk: RiskAct, DoneCheck: check,
			Params: json.RawMessage(`{"type":"object","required":["email"],"properties":{"email":{"type":"string"}}}`),
			Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
				t.Error("a done check ran the checked macro")
				return nil, nil
			},
		}
	}
	byEmail := func(args json.RawMessage) (map[string]any, error) {
		var a struct{ Email string }
		err := json.Unmarshal(args, &a)
		return map[string]any{"q": a.Email}, err
	}
	gte1 := []Want{{Field: "count", Op: "gte", Arg: json.RawMessage(`1`)}}
	tests := []struct {
		name  string
		check *DoneCheck
		email string
		want  Done
		why   string
	}{
		{"there", &DoneCheck{Macro: "find", Args: byEmail, Done: gte1}, "ada@example.com", DoneYes, "find says the effect is there"},
		{"absent", &DoneCheck{Macro: "find", Args: byEmail, Done: gte1}, "bob@example.com", DoneNo, "find says the effect is not there"},
		{"the check fails", &DoneCheck{Macro: "find", Args: byEmail, Done: gte1}, "down@example.com", DoneUnknown, "failed"},
		{"the result lacks the field", &DoneCheck{Macro: "find", Args: byEmail, Done: gte1}, "odd@example.com", DoneUnknown, "count"},
		{"no done check", nil, "ada@example.com", DoneUnknown, "declares no done_check"},
		{"an unknown checker", &DoneCheck{Macro: "nope", Args: byEmail, Done: gte1}, "ada@example.com", DoneUnknown, "not in the registry"},
		{"a checker that acts", &DoneCheck{Macro: "write", Args: byEmail, Done: gte1}, "ada@example.com", DoneUnknown, "not a read macro"},
		{"arguments the checker refuses", &DoneCheck{Macro: "find", Args: func(json.RawMessage) (map[string]any, error) { return map[string]any{"q": 7}, nil }, Done: gte1}, "ada@example.com", DoneUnknown, "arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := add(tc.check)
			reg, err := NewRegistry(m, find, writer)
			if err != nil {
				t.Fatal(err)
			}
			d := &Dispatcher{Registry: reg}
			valid, cerr := m.Validate(json.RawMessage(`{"email":"` + tc.email + `"}`))
			if cerr != nil {
				t.Fatal(cerr)
			}
			looked = nil
			v := d.CheckDone(context.Background(), "c-done", 1, valid, map[string]any{"batch": "b-1"})
			if v.Done != tc.want || !strings.Contains(v.Why, tc.why) {
				t.Fatalf("got %s (%s), want %s (...%s...)", v.Done, v.Why, tc.want, tc.why)
			}
			if tc.want != DoneUnknown && (len(looked) != 1 || looked[0] != tc.email) {
				t.Errorf("the checker was asked %v, want [%s]", looked, tc.email)
			}
		})
	}
}
