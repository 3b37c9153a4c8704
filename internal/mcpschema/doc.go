// Package mcpschema gives `macrokit generate`, `check` and `lint` the tool
// schemas of the MCP servers a deployment configures, as spec.MCPSource:
// read from the copy cached beside the specs (macros.d/.mcp/<server>.json,
// committed with them), or listed from the server itself when there is no
// copy or a refresh is asked for, and then written there. The specs are
// then checked, and the code generated, the same way offline and on every
// machine; package gen only ever sees the schemas as data.
package mcpschema
