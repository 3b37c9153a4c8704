package gate

import (
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// TestInterruptedCallsAreNotSuccesses: a raw call with no result (the
// process was killed while it ran) is reported as failed and interrupted
// and is not a step; a torn last line is skipped.
func TestInterruptedCallsAreNotSuccesses(t *testing.T) {
	l := newLog("s1")
	l.user("add ada")
	l.raw(toolGoto, map[string]any{"url": demo + "/customers"}, nil, "about:blank", demo+"/customers")
	l.raw(toolFill, map[string]any{"target": target("label", "Name"), "value": "Ada"}, map[string]any{"value": "Ada"}, demo+"/customers", demo+"/customers")
	// Killed while clicking Save: the call, no result, then a torn line.
	l.rec(sessionlog.Record{Type: sessionlog.RecToolCall, CallID: "c9", Tool: toolClick, Raw: true, Args: mustJSON(map[string]any{"target": target("role", "button", "name", "Save")})})
	l.line(`{"v":1,"type":"tool_result","session":"s1","turn":1,"call_id":"c9","to`)
	r := scanString(t, l.String(), Options{Threshold: 3})
	if r.Stats.Interrupted != 1 || r.Stats.Torn != 1 || r.Stats.Findings != 1 {
		t.Fatalf("stats %+v: want 1 interrupted, 1 torn, 1 finding", r.Stats)
	}
	calls := r.Findings[0].Calls
	if len(calls) != 3 || calls[2].OK || !strings.Contains(calls[2].String(), "[interrupted]") {
		t.Errorf("calls = %+v", calls)
	}
	if len(r.Groups) != 1 || len(r.Groups[0].Shape) != 2 {
		t.Errorf("the interrupted click became a step: %+v", r.Groups)
	}
}
