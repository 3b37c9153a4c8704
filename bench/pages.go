package bench

import "embed"

// Pages is the pages/ directory: one static HTML page per scenario.
//
//go:embed pages/*.html
var Pages embed.FS
