// Package jsonpath parses the JSON path subset of macro specs: `$`, then
// `.key`, `["key"]` or `['key']`, `[N]` (negative counts from the end) and
// `[*]` (every element of a list). spec checks paths with it at generate
// time and runtime evaluates them with it, so both read the same grammar.
package jsonpath
