package serve

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
)

// maxEcho bounds a value a response repeats from its request (an argument
// a step typed, a check's expected and actual text, an error message):
// longer strings keep their first echoKeep bytes and a marker with their
// length and SHA-256. Without it a 900 KB argument came back about eight
// times (fill detail, value check expected and actual, the request URL,
// the verification summary), an 8 MB response.
const (
	maxEcho  = 2048
	echoKeep = 256
)

// boundString returns s, or its head and a marker when it is longer than
// maxEcho.
func boundString(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := echoKeep
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [truncated: %d bytes, sha256:%x]", s[:cut], len(s), sha256.Sum256([]byte(s)))
}

// boundAny bounds every string in a decoded JSON value (copying the maps
// and slices it changes); values of other types that encode to more than
// maxEcho bytes become a marker string.
func boundAny(v any) any {
	switch x := v.(type) {
	case nil, bool, float64, int, int64, json.Number:
		return v
	case string:
		return boundString(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = boundAny(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = boundAny(e)
		}
		return out
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) <= maxEcho {
		return v
	}
	var dec any
	if json.Unmarshal(b, &dec) == nil {
		return boundAny(dec)
	}
	return boundString(string(b))
}

func boundMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return boundAny(m).(map[string]any)
}

// boundRaw bounds the strings of a JSON document (arguments echoed back).
func boundRaw(raw json.RawMessage) json.RawMessage {
	if len(raw) <= maxEcho {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		b, _ := json.Marshal(boundString(string(raw)))
		return b
	}
	b, err := json.Marshal(boundAny(v))
	if err != nil {
		return raw
	}
	return b
}

func boundStep(s runtime.StepRecord) runtime.StepRecord {
	s.Message = boundString(s.Message)
	s.Detail = boundMap(s.Detail)
	if len(s.Checks) > 0 {
		checks := make([]engine.CheckResult, len(s.Checks))
		for i, c := range s.Checks {
			c.Expected, c.Actual, c.Evidence = boundString(c.Expected), boundString(c.Actual), boundMap(c.Evidence)
			checks[i] = c
		}
		s.Checks = checks
	}
	return s
}

func boundError(e *runtime.CallError) *runtime.CallError {
	if e == nil {
		return nil
	}
	c := *e
	c.Message = boundString(c.Message)
	if len(c.Args) > 0 {
		c.Args = make([]runtime.ArgError, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = runtime.ArgError{Pointer: boundString(a.Pointer), Message: boundString(a.Message)}
		}
	}
	if c.Step != nil {
		st := boundStep(*c.Step)
		c.Step = &st
	}
	return &c
}

// boundOutcome is out with what it echoes bounded: step messages, details
// and checks, the verification summary, the error. The result — what the
// macro produced, conforming to its schema — is kept whole.
func boundOutcome(out *runtime.Outcome) *runtime.Outcome {
	if out == nil {
		return nil
	}
	o := *out
	if len(out.Steps) > 0 {
		o.Steps = make([]runtime.StepRecord, len(out.Steps))
		for i, s := range out.Steps {
			o.Steps[i] = boundStep(s)
		}
	}
	if out.Verification.Checks != nil {
		o.Verification.Checks = boundAny(out.Verification.Checks)
	}
	o.Error = boundError(out.Error)
	return &o
}

// boundTurn is a routed turn with what it echoes bounded: the request, the
// arguments, the outcome and the calls.
func boundTurn(t *route.TurnResult) *route.TurnResult {
	c := *t
	c.Request = boundString(t.Request)
	c.Args = boundRaw(t.Args)
	c.Outcome = boundOutcome(t.Outcome)
	if len(t.Repairs) > 0 {
		c.Repairs = make([]runtime.Repair, len(t.Repairs))
		for i, r := range t.Repairs {
			r.From, r.To = boundAny(r.From), boundAny(r.To)
			c.Repairs[i] = r
		}
	}
	if len(t.Calls) > 0 {
		c.Calls = make([]route.TurnCall, len(t.Calls))
		for i, call := range t.Calls {
			call.Args, call.Error = boundRaw(call.Args), boundError(call.Error)
			c.Calls[i] = call
		}
	}
	if len(t.BailOuts) > 0 {
		c.BailOuts = make([]route.BailOut, len(t.BailOuts))
		for i, b := range t.BailOuts {
			b.Detail = boundString(b.Detail)
			if len(b.Candidates) > 0 {
				cands := make([]route.Candidate, len(b.Candidates))
				for j, cd := range b.Candidates {
					cands[j] = route.Candidate{Name: boundString(cd.Name), Args: boundRaw(cd.Args)}
				}
				b.Candidates = cands
			}
			c.BailOuts[i] = b
		}
	}
	return &c
}
