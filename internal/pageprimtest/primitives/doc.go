// Package primitives is the test deployment's Go primitives for package
// pageprimtest: one that takes the call's page.
package primitives
