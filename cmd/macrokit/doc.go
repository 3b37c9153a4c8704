// Command macrokit compiles YAML macro specs into typed Go and runs them
// against real Chromium with verified results. See README.md.
package main
