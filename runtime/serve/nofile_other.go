//go:build !unix

package serve

// nofileLimit is unknown off Unix: the default ceiling applies.
func nofileLimit() int { return 0 }
