// Package engine is macrokit's verified page engine: it drives a real Chromium
// through go-rod and reports a page step as passed only when the live page
// proves it.
//
// The layers, in the order a step passes through them:
//
//   - Lifecycle (browser.go): find a local Chromium (never download one),
//     launch or connect over CDP, hand out isolated contexts and pages, and
//     leave no process or profile directory behind on Close.
//   - Perception (snapshot.go, js/): one in-page evaluation lists the
//     interactive and landmark elements with role, accessible name, value,
//     states, visibility and geometry, walking open shadow roots and
//     same-origin iframes; the action menu and annotated screenshot are built
//     from it.
//   - Grounding (ground.go): a Target (role/name, label, text, placeholder,
//     testid, css; within/nth/last) resolves to exactly one element or to a
//     typed error that lists the candidates; a Fingerprint re-finds the element
//     after a re-render, with a confidence score.
//   - Execution (act.go): actionability (attached, visible, stable, enabled,
//     receives the pointer) and input through CDP or DOM events.
//   - Verification (verify.go): post-conditions evaluated against the live
//     page; a check is passed, failed or unverifiable, and only passed counts.
//   - Failure handling (heal.go, run.go): diagnose, run a budgeted strategy
//     chain, and never repeat a step whose post-conditions already hold.
//   - Trace (trace.go): structured events with sensitive values redacted.
//
// Every wait takes a context and waits for an effect (a DOM mutation, a
// request, a navigation), never for a fixed quiet period.
package engine
