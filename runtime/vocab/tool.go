package vocab

// ToolRisk is the risk of calling an MCP tool, from its annotations, as
// "read", "act" or "dangerous": read-only is read; otherwise the tool is
// dangerous unless it says it is not destructive (destructiveHint: false),
// since MCP's default for a tool that is not read-only is destructive.
// The spec checker (from a cached schema) and the runtime (from the live
// listing) both read tools through this one rule.
func ToolRisk(readOnly bool, destructive *bool) string {
	switch {
	case readOnly:
		return "read"
	case destructive != nil && !*destructive:
		return "act"
	}
	return "dangerous"
}
