// Package record turns a recorded demonstration — the actions the engine's
// in-page recorder reported ([github.com/macrokit/macrokit-go/engine.Recorder])
// — into a macro spec: the steps with the targets a user would write, the
// filled and selected values as typed parameters (passwords as secrets,
// never written), and post-conditions from the effects each action had on
// the page (the requests it sent, the list that grew, the text that
// appeared, the URL it went to, the dialog it opened).
//
// Like runtime/gate it is runtime-side and does not import the spec
// compiler: it writes spec YAML, which the CLI checks with package spec
// before anything is written (docs/record.md).
package record
