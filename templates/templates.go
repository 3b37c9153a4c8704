package templates

import "embed"

// Deploy is the layout of a new deployment (`macrokit init`).
//
//go:embed all:deploy
var Deploy embed.FS
