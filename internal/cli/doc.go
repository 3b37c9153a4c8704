// Package cli is every command of every macrokit binary, built from one
// table (commandTable): the deployment set (run, ask, chat, list,
// sessions, test, serve, gate, refdata, version) that [Main] gives a
// deployment through the public runtime/app, and the authoring set
// (generate, check, lint, schema, init, eval, demo) that [Run] adds for the
// macrokit binary.
//
// Each command's Action only decodes its flags into an options struct
// (e.g. [RunOptions]) and calls a run function over an [Env] — the config
// and the streams — so tests call the function without a *cli.Context.
// Exit codes: 0 ok, 1 failure or diff ([Failf], [Silent]), 2 usage
// ([Usagef]); errors carry them as an [*ExitError], recognised by type. Data
// goes to stdout, diagnostics to stderr. --format is one enum flag
// (formatFlag) whose values outside a command's set are usage errors.
package cli
