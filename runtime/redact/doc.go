// Package redact removes secret values from text before it is logged,
// traced, recorded or shown: the one implementation the engine, the runtime,
// session logs ([github.com/macrokit/macrokit-go/runtime/sessionlog]) and
// fixtures share.
//
// [String] replaces every occurrence of each secret with [Marker].
// Occurrences are found in the original text and overlapping or adjacent
// ones become one span, so no part of a secret survives because another
// secret sharing characters with it was replaced first. [JSON] does the same
// inside an encoded JSON document, matching each secret in its escaped form;
// [Any] walks decoded JSON-like values; [Forms] adds a secret's escaped
// spellings (URL, JSON) for text that may hold them.
//
// The package imports only the standard library.
package redact
