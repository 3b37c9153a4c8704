// Package mcpclient is the deployment's MCP client: the runtime.MCPClient
// that mcp steps call, over the official go-sdk (a stdio server through
// mcp.CommandTransport, a remote one through mcp.StreamableClientTransport),
// and the tool listing `macrokit generate` reads the tools' schemas from.
//
// A Pool connects to each configured server on first use and keeps that
// session for the rest of the process (a command's run), reconnecting once
// when the server dropped it; Close ends every session and stops every
// server process it started. Header and environment values come from the
// deployment's environment ({env: NAME}) when the server is connected and
// are never logged: errors name the variable, not its value.
package mcpclient
