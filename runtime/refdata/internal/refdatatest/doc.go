// Package refdatatest builds signed reference-data bundles for the tests of
// [refdata] and its cache: deterministic keys ([Key]), bundle specs sealed
// into a directory ([Write]) or an archive ([Pack]), a fixed clock ([Clock])
// and error-code checks ([WantCode]).
//
// It is a separate package so that refdata's external tests and the cache's
// tests share one copy; it is internal because nothing else should build on it.
package refdatatest
