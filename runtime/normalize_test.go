package runtime

import (
	"context"
	"encoding/json"
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
			var a, b any
			_ = json.Unmarshal(out, &a)
			_ = json.Unmarshal([]byte(tc.want), &b)
			ga, _ := json.Marshal(a)
			gb, _ := json.Marshal(b)
			if string(ga) != string(gb) {
				t.Errorf("got %s, want %s", out, tc.want)
			}
			if len(reps) != tc.repairs {
				t.Errorf("repairs %v, want %d", reps, tc.repairs)
			}
		})
	}
}
