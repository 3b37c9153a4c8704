// Package catalog is the lexical index a router uses to put only the
// macros relevant to a request into a small model's prompt: [New] builds a
// [Catalog] over a registry once (BM25F over names, intents, descriptions,
// examples and params, plus name-word families), [Catalog.Select] returns
// the top k for a request. [EstimateTokens] and [ToolTokens] estimate
// prompt sizes without a tokenizer. docs/catalog.md has the figures.
package catalog
