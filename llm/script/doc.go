// Package script is the offline, deterministic [llm.Model]: it answers from
// a [Playbook] of regular-expression rules instead of asking a model, so the
// router loop runs in demos and tests with no API key.
//
// [Parse] and [Load] read and validate a playbook, reporting every problem at
// once as an [*Error]; [New] returns the [Model] that answers from it. A rule
// either calls a tool, with arguments built from the rule's captures and
// coerced to the tool's parameter types, or replies with text; after a tool
// result the model summarises it. See docs/llm.md for the playbook format.
package script
