// Package app is a deployment binary's whole command line. A deployment's
// main builds a [Config] over its generated registry and primitives and
// hands os.Args to [Main], which runs the standard command set (run, ask,
// chat, list, sessions, test, serve, gate, refdata, version) and returns the
// exit code: 0 ok, 1 failure or diff, 2 usage.
//
// The commands themselves live in the module's internal/cli, shared with the
// macrokit binary; this package is their only public door, so the CLI
// library behind them can change without breaking a deployment.
package app
