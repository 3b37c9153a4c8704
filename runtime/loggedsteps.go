package runtime

import "github.com/macrokit/macrokit-go/runtime/sessionlog"

// loggedSteps is the steps part of a tool_result record: each step's
// status, timing, healing and screenshots (its checks are in the record's
// verification, already redacted by Exec.record like everything here).
// A run that stayed in the main tab names no tab, as Record.Tabs.
func loggedSteps(steps []StepRecord) []sessionlog.Step {
	if len(steps) == 0 {
		return nil
	}
	tabs := usedTabs(steps)
	out := make([]sessionlog.Step, 0, len(steps))
	for _, s := range steps {
		ls := sessionlog.Step{Path: s.Path, Kind: s.Kind, Status: s.Status, Diagnosis: s.Diagnosis,
			Message: s.Message, DurationMS: s.Duration.Milliseconds(), Shots: s.Shots}
		if tabs {
			ls.Tab = s.Tab
		}
		if n, ok := s.Detail["attempts"].(int); ok {
			ls.Attempts = n
		}
		if strats, ok := s.Detail["strategies"].([]string); ok && len(strats) > 1 {
			ls.Healing = append([]string(nil), strats[1:]...)
		}
		if c, ok := s.Detail["mcp"].(*sessionlog.MCPCall); ok {
			cp := *c
			ls.MCP = &cp
		}
		out = append(out, ls)
	}
	return out
}
