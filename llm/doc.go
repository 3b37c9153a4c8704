// Package llm holds macrokit's model port: adapters (OpenAI-compatible incl.
// Ollama, scripted, replay), tool-call normalisation, and the parsing that
// turns a weak model's text back into a structured answer.
package llm
