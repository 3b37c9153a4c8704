// Package mcptest holds the end-to-end tests of mcp steps: specs
// (macros.d/) calling a small MCP ticket server written for the test with
// the official go-sdk (in-process over streamable HTTP, and as a stdio
// process re-executed from the test binary) and the deployment's own
// `serve --mcp` (in process over HTTP, and the built cmd/macrokit binary as
// a stdio server whose export_orders tool calls the demo site), compiled by
// `macrokit generate` into generated/ and run through the runtime's
// Dispatcher or the deployment's command line, side effects counted on the
// servers. Credentials from the environment (a bearer header, a stdio
// server's variable) are checked set, unset and wrong.
//
// macros.d/.mcp/macrokit.json lists the repo's own macros as serve --mcp
// serves them: a change to macros.d/ at the repo's root changes it.
// Regenerate with (the first builds cmd/macrokit)
//
//	go test ./internal/mcptest -run TestSchemasCached -update
//	go run ./cmd/macrokit generate --macros internal/mcptest/macros.d --out internal/mcptest/generated
package mcptest
