// Package approval is a deployment's per-tool authorization memory: for
// each macro or raw tool a remembered decision — ask (the default),
// always or never — persisted in one JSON file of the project
// (.macrokit/approvals.json), and an Approver wrapper that consults it
// before anyone is asked. The terminal prompts of run, ask and chat offer
// "always" and "never" answers that it stores; serve consults it too;
// `macrokit approvals` shows and edits it.
//
// It also carries, on a context, through which channel an approval was
// answered ([Track], [Note]), so the code that asked can write one audit
// event naming the channel.
package approval
