// Package terms turns text into the content words that routing compares:
// lower-cased runs of letters and digits, without stop words, bare numbers
// or single characters, crudely stemmed (closes, closed, closing -> clos).
//
// The router's catalog (runtime/route/catalog) indexes macros with it, and
// `macrokit lint` (package spec) measures how alike two macros' intents and
// examples are with it, so what lint calls "too close" is what retrieval
// cannot tell apart. It is a leaf: it imports only the standard library.
package terms
