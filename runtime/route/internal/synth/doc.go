// Package synth builds the registries the catalog's and the router's tests
// and benchmarks measure: the twelve core macros of the routing benchmark
// and macros.d ([Core]) among up to a thousand synthetic distractors
// ([Registry]). It is test support, importable only under runtime/route.
package synth
