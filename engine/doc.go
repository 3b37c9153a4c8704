// Package engine is macrokit's verified page engine: it drives a real Chromium
// through go-rod and reports a page step as passed only when the live page
// proves it.
//
// [Launch] (or [Connect]) gives a [Browser]; [Browser.NewContext] an isolated
// [Context]; [Context.NewPage] a [Page]. [Page.Do] runs one [Step]: it
// grounds the step's [Target], acts, and checks each [Condition] against the
// live page. The [StepResult] holds one [CheckResult] per check with its
// evidence; a failure is an [*Error] with a stable [Code]. [Page.Run] runs a
// list of steps.
//
// The layers, in the order a step passes through them, each found by its
// file name:
//
//   - Lifecycle (browser.go, page.go): find a local Chromium (never download
//     one), launch or connect over CDP, hand out isolated contexts and pages,
//     and leave no process or profile directory behind on Close.
//   - The in-page agent (agent.go, js/): the files of js/ installed in every
//     document as window.__mk, called from Go through typed function names.
//   - Perception (snapshot.go): one in-page evaluation lists the interactive
//     and landmark elements with role, accessible name, value, states,
//     visibility and geometry, walking open shadow roots and same-origin
//     iframes; the action menu and annotated screenshot are built from it
//     ([Page.Snapshot]).
//   - Grounding (ground.go): a Target (role/name, label, text, placeholder,
//     testid, css; within/nth/last) resolves to exactly one [Element] or to a
//     typed error that lists the candidates; a [Fingerprint] re-finds the
//     element after a re-render, with a confidence score ([Page.Resolve]).
//   - Execution: actionability (actionable.go: attached, visible, stable,
//     enabled, receives the pointer) and input through CDP or DOM events
//     ([Channel]); one file per action concept: act.go (click, hover, fill,
//     scroll), select.go, check.go, upload.go, press.go (key specs are parsed
//     by the pure package [github.com/macrokit/macrokit-go/engine/keys]), with
//     pointer.go for the guarded click and settle.go and popups.go for the
//     navigation or popup an action starts. Each returns an [ActResult].
//   - Verification (verify.go, request.go, wait.go): post-conditions
//     evaluated against the live page and its network log ([Page.Verify]); a
//     check is passed, failed or unverifiable, and only passed counts.
//   - Running a step (run.go, perform.go) and failure handling (heal.go):
//     the normal path grounds, acts and verifies; after a failure heal.go
//     picks a budgeted strategy from the diagnosis, and a step whose
//     post-conditions already hold is never repeated.
//   - Trace (trace.go): structured events ([Event]) for a [Tracer], with
//     sensitive values redacted.
//   - Screenshots (mask.go): [Page.MaskedScreenshot] captures the viewport
//     with password fields and every place showing a registered secret
//     painted over, without writing to the page.
//
// Every wait takes a context and waits for an effect (a DOM mutation, a
// request, a navigation), never for a fixed quiet period.
package engine
