// Package llm holds macrokit's model port: adapters (OpenAI-compatible incl.
// Ollama, record and replay), tool-call normalisation, and the parsing that
// turns a weak model's text back into a structured answer — in bounded,
// cancellable work ([Scanner], [MaxScanBytes]), since model text is
// outside input. The offline
// scripted model is package [github.com/macrokit/macrokit-go/llm/script].
package llm
