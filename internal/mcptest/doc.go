// Package mcptest holds the end-to-end tests of mcp steps: specs
// (macros.d/) calling a small MCP ticket server written for the test with
// the official go-sdk (in-process over streamable HTTP, and as a stdio
// process re-executed from the test binary) and the deployment's own
// `serve --mcp`, compiled by `macrokit generate` into generated/ and run
// through the runtime's Dispatcher, side effects counted on the server.
//
// Regenerate with
//
//	go test ./internal/mcptest -run TestSchemasCached -update
//	go run ./cmd/macrokit generate --macros internal/mcptest/macros.d --out internal/mcptest/generated
package mcptest
