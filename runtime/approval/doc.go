// Package approval is a deployment's per-tool authorization memory: for
// each macro or raw tool a remembered decision — ask (the default),
// always or never — persisted in one JSON file of the project
// (.macrokit/approvals.json), and [Memory.Gate], an approver that consults
// it before anyone is asked. The terminal prompts of run, ask and chat
// offer "always" and "never" answers that they store; serve consults it
// too; `macrokit approvals` shows and edits it.
package approval
