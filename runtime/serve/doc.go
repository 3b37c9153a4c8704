// Package serve serves a macro registry to other programs: every macro as
// an MCP tool (stdio or streamable HTTP, through the official MCP Go SDK)
// and a small JSON HTTP API, over one shared browser whose isolated
// contexts are handed out by a bounded pool. Every call goes through the
// runtime's Dispatcher, so it is validated, verified and written to the
// session log exactly like `run`. With Options.Fleet the calls run on
// other processes instead (serve --nats: a worker fleet; the dispatcher
// still validates, approves and logs them) and no browser is started.
//
// It is independent of any command-line framework: internal/cli wires it to
// flags (`macrokit serve`).
package serve
