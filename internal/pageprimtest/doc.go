// Package pageprimtest holds tests only: the page reads (action_menu,
// annotated_screenshot) and a primitive that takes the call's page, end
// to end — specs in macros.d/, primitives in primitives/, compiled by
// `macrokit generate` into generated/ and run in real Chromium against
// the demo site, with the session log read back.
//
// Regenerate with
//
//	go run ./cmd/macrokit generate --macros internal/pageprimtest/macros.d --primitives internal/pageprimtest/primitives --out internal/pageprimtest/generated
package pageprimtest
