// Package editdist measures how far apart two short names are, for "did you
// mean" suggestions in spec diagnostics and CLI usage errors alike.
package editdist
