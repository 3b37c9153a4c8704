package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// fullLog is a session log on a full disk: dir/s.jsonl is /dev/full, where
// every write fails with ENOSPC.
func fullLog(t *testing.T) *sessionlog.Writer {
	t.Helper()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, "s.jsonl")); err != nil {
		t.Fatal(err)
	}
	log, err := sessionlog.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	return log
}

// A call whose tool_call record cannot be written does not run; a call
// whose tool_result cannot be written says so.
func TestDispatchFailedLogWrite(t *testing.T) {
	cases := []struct {
		name string
		log  func(t *testing.T) *sessionlog.Writer
		// closeInRun closes the log while the macro runs (the result write
		// fails, the call write did not).
		closeInRun  bool
		wantEffects int
		wantCode    ErrorCode // the outcome's error code ("" = ok)
		wantLogErr  bool
		args        string // the call's raw arguments (default {})
	}{
		{name: "disk full before the call", log: fullLog, wantEffects: 0, wantCode: CodeLogFailed},
		{name: "log closed before the call", log: func(t *testing.T) *sessionlog.Writer {
			l, err := sessionlog.Open(t.TempDir(), "s")
			if err != nil {
				t.Fatal(err)
			}
			_ = l.Close()
			return l
		}, wantEffects: 0, wantCode: CodeLogFailed},
		{name: "result write fails", log: func(t *testing.T) *sessionlog.Writer {
			l, err := sessionlog.Open(t.TempDir(), "s")
			if err != nil {
				t.Fatal(err)
			}
			return l
		}, closeInRun: true, wantEffects: 1, wantLogErr: true},
		{name: "log fine", log: func(t *testing.T) *sessionlog.Writer {
			l, err := sessionlog.Open(t.TempDir(), "s")
			if err != nil {
				t.Fatal(err)
			}
			return l
		}, wantEffects: 1},
		// Trailing garbage: the arguments decode, but the raw text cannot
		// be a log record, so the call would run unlogged.
		{name: "arguments that are not one JSON value (rejected before the log, never run)", log: func(t *testing.T) *sessionlog.Writer {
			l, err := sessionlog.Open(t.TempDir(), "s")
			if err != nil {
				t.Fatal(err)
			}
			return l
		}, args: `{"name":"Ada"} {"tier":"x"}`, wantEffects: 0, wantCode: CodeInvalidArguments},
	}
	for _, tc := range cases {
		for _, risk := range []Risk{RiskRead, RiskDangerous} {
			if tc.args == "" {
				tc.args = `{}`
			}
			t.Run(tc.name+"/"+string(risk), func(t *testing.T) {
				log := tc.log(t)
				effects, approvals := 0, 0
				m := &Macro{Name: "add_customer", Intent: "add a customer", Risk: risk,
					Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
						effects++
						if tc.closeInRun {
							_ = log.Close()
						}
						return map[string]bool{"added": true}, nil
					}}
				reg, err := NewRegistry(m)
				if err != nil {
					t.Fatal(err)
				}
				d := &Dispatcher{Registry: reg, Log: log, Approver: func(context.Context, ApprovalRequest) (bool, error) {
					approvals++
					return true, nil
				}}
				out := d.Dispatch(context.Background(), Call{ID: "c1", Name: "add_customer", Args: json.RawMessage(tc.args)})
				if effects != tc.wantEffects {
					t.Errorf("the macro ran %d time(s), want %d", effects, tc.wantEffects)
				}
				if tc.wantEffects == 0 && approvals != 0 {
					t.Errorf("an approval was asked for a call that cannot be logged")
				}
				code := ErrorCode("")
				if out.Error != nil {
					code = out.Error.Code
				}
				if code != tc.wantCode || out.OK != (tc.wantCode == "") {
					t.Errorf("outcome ok=%v code %q, want code %q", out.OK, code, tc.wantCode)
				}
				if (out.LogError != nil) != tc.wantLogErr {
					t.Errorf("LogError = %+v, want set: %v", out.LogError, tc.wantLogErr)
				}
				if out.LogError != nil && out.LogError.Code != CodeLogFailed {
					t.Errorf("LogError code %q", out.LogError.Code)
				}
			})
		}
	}
}
