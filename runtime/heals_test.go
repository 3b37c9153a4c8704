package runtime

import (
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
)

// TestHealsOf: a heal is proven only by a passed post-condition at or
// after its step that is not an action's read-back; a call that would
// pass on an unproven heal gets heal_unproven.
func TestHealsOf(t *testing.T) {
	heal := &engine.Heal{Target: engine.Target{Label: "Email"}, Cause: engine.CodeNotFound, Confidence: 0.8}
	readBack := engine.CheckResult{Kind: "value_equals", Status: engine.Passed, Evidence: map[string]any{"implicit": true}}
	post := engine.CheckResult{Kind: "text_present", Status: engine.Passed}
	failed := engine.CheckResult{Kind: "text_present", Status: engine.Failed}
	status := engine.CheckResult{Kind: checkExpectStatus, Status: engine.Passed}
	cases := []struct {
		name     string
		ok       bool
		steps    []StepRecord
		proven   bool
		unproven bool // the call gets heal_unproven
	}{
		{"own expect proves it", true, []StepRecord{{Path: "steps[0]", Kind: "click", Status: "passed", Heal: heal, Checks: []engine.CheckResult{post}}}, true, false},
		{"a later check proves a fill", true, []StepRecord{
			{Path: "steps[0]", Kind: "fill", Status: "passed", Heal: heal, Checks: []engine.CheckResult{readBack}},
			{Path: "steps[1]", Kind: "click", Status: "passed", Checks: []engine.CheckResult{post}}}, true, false},
		{"a read-back alone proves nothing", true, []StepRecord{{Path: "steps[0]", Kind: "fill", Status: "passed", Heal: heal, Checks: []engine.CheckResult{readBack}}}, false, true},
		{"an http status proves nothing", true, []StepRecord{
			{Path: "steps[0]", Kind: "fill", Status: "passed", Heal: heal, Checks: []engine.CheckResult{readBack}},
			{Path: "steps[1]", Kind: "http", Status: "passed", Checks: []engine.CheckResult{status}}}, false, true},
		{"an earlier check proves nothing", true, []StepRecord{
			{Path: "steps[0]", Kind: "click", Status: "passed", Checks: []engine.CheckResult{post}},
			{Path: "steps[1]", Kind: "fill", Status: "passed", Heal: heal, Checks: []engine.CheckResult{readBack}}}, false, true},
		{"a failed call keeps the attempt", false, []StepRecord{{Path: "steps[0]", Kind: "click", Status: "failed", Heal: heal, Checks: []engine.CheckResult{failed}}}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hs, cerr := healsOf(tc.ok, tc.steps)
			if len(hs) != 1 || hs[0].Proven != tc.proven {
				t.Fatalf("heals %+v, want one with proven=%v", hs, tc.proven)
			}
			if tc.unproven != (cerr != nil) || (cerr != nil && (cerr.Code != CodeHealUnproven || !strings.Contains(cerr.Message, `{label="Email"}`))) {
				t.Errorf("error %v, want heal_unproven=%v", cerr, tc.unproven)
			}
		})
	}
}
