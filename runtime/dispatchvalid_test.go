package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestDispatchValid runs already-validated arguments without validating
// again, and refuses what Validate did not make for this registry.
func TestDispatchValid(t *testing.T) {
	reg := testRegistry(t, "http://127.0.0.1:1")
	greet, _ := reg.Lookup("greet")
	other := &Macro{Name: "greet", Risk: RiskRead, Params: json.RawMessage(greetSchema), Handler: greet.Handler}
	valid, cerr := greet.Validate(json.RawMessage(`{"name":"Ada","token":"s3cret-v"}`))
	if cerr != nil {
		t.Fatal(cerr)
	}
	foreign, cerr := other.Validate(json.RawMessage(`{"name":"Ada"}`))
	if cerr != nil {
		t.Fatal(cerr)
	}
	cases := []struct {
		name     string
		args     ValidArgs
		wantCode ErrorCode // "" means the call runs
		wantRes  string
	}{
		{name: "validated", args: valid, wantRes: `{"greeting":"hello Ada (free)"}`},
		{name: "zero value", args: ValidArgs{}, wantCode: CodeInternal},
		{name: "another registry's macro", args: foreign, wantCode: CodeMacroNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			log, err := sessionlog.Open(dir, "v")
			if err != nil {
				t.Fatal(err)
			}
			d := &Dispatcher{Registry: reg, Log: log}
			out := d.DispatchValid(context.Background(), "c1", 1, tc.args)
			_ = log.Close()
			switch {
			case tc.wantCode == "" && (!out.OK || string(out.Result) != tc.wantRes):
				t.Fatalf("outcome %+v, want result %s", out, tc.wantRes)
			case tc.wantCode != "" && (out.OK || out.Error.Code != tc.wantCode):
				t.Fatalf("outcome %+v, want %s", out, tc.wantCode)
			}
			b, _ := os.ReadFile(log.Path())
			var types []sessionlog.RecordType
			_, _ = sessionlog.Read(bytes.NewReader(b), func(r sessionlog.Record) error { types = append(types, r.Type); return nil })
			if len(types) != 2 || types[0] != sessionlog.RecToolCall || types[1] != sessionlog.RecToolResult {
				t.Errorf("records %v, want tool_call and tool_result", types)
			}
			if bytes.Contains(b, []byte("s3cret-v")) {
				t.Errorf("the secret param reached the log:\n%s", b)
			}
		})
	}
}

// TestBuiltinToolHooks covers what a built-in tool adds to a macro: Check
// refines validation, SecretsOf redacts values known at call time, Raw
// and Annotate shape the records, a failed step's diagnosis is logged.
func TestBuiltinToolHooks(t *testing.T) {
	tool := &Macro{Name: "tool", Risk: RiskRead, Raw: true,
		Params: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"fail":{"type":"boolean"}}}`),
		Check: func(args json.RawMessage, errs []ArgError) []ArgError {
			var v struct{ A, B string }
			if len(errs) == 0 && json.Unmarshal(args, &v) == nil && v.A != "" && v.B != "" {
				errs = append(errs, ArgError{Pointer: "/b", Message: "give a or b, not both"})
			}
			return errs
		},
		SecretsOf: func(_ context.Context, args json.RawMessage) []string {
			var v struct{ A string }
			_ = json.Unmarshal(args, &v)
			return []string{v.A}
		},
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			var v struct {
				A    string
				Fail bool
			}
			_ = json.Unmarshal(args, &v)
			x.Annotate("url_after", "https://shop.example/"+v.A)
			rec := StepRecord{Path: "tool", Kind: "probe", Status: "passed", Message: "saw " + v.A}
			if v.Fail {
				return nil, x.FailStep(ctx, rec, os.ErrNotExist)
			}
			x.Record(rec)
			return map[string]string{"ok": "yes"}, nil
		},
	}
	reg, err := NewRegistry(tool)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, args string
		wantCode   ErrorCode
		wantDiag   bool
	}{
		{name: "runs", args: `{"a":"hunter2"}`},
		{name: "Check refuses", args: `{"a":"hunter2","b":"x"}`, wantCode: CodeInvalidArguments},
		{name: "a failed step", args: `{"a":"hunter2","fail":true}`, wantCode: CodeStepFailed, wantDiag: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log, err := sessionlog.Open(t.TempDir(), "h")
			if err != nil {
				t.Fatal(err)
			}
			out := (&Dispatcher{Registry: reg, Log: log}).Dispatch(context.Background(), Call{ID: "c", Name: "tool", Args: json.RawMessage(tc.args)})
			_ = log.Close()
			if (tc.wantCode == "") != out.OK || (out.Error != nil && out.Error.Code != tc.wantCode) {
				t.Fatalf("outcome %+v, want code %q", out, tc.wantCode)
			}
			b, _ := os.ReadFile(log.Path())
			if bytes.Contains(b, []byte("hunter2")) {
				t.Errorf("a SecretsOf value reached the log:\n%s", b)
			}
			var recs []sessionlog.Record
			_, _ = sessionlog.Read(bytes.NewReader(b), func(r sessionlog.Record) error { recs = append(recs, r); return nil })
			if len(recs) != 2 || !recs[0].Raw || !recs[1].Raw {
				t.Fatalf("records %+v, want a raw tool_call and tool_result", recs)
			}
			res := recs[1]
			if tc.wantCode != CodeInvalidArguments && res.Data["url_after"] == nil {
				t.Errorf("tool_result data %v lacks the annotation", res.Data)
			}
			if tc.wantDiag {
				if d, ok := res.Error.Details.(map[string]any); !ok || d["diagnosis"] == nil {
					t.Errorf("error details %#v lack the failed step's diagnosis", res.Error.Details)
				}
			}
		})
	}
}
