package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"
)

// Genesis is the prev of a log's first line: no line comes before it.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// MaxLine bounds one line of the log in bytes (its newline excluded).
// Append clips an event's text fields so that a line always fits; Verify
// rejects longer lines without buffering them.
const MaxLine = 64 << 10

// Entry is one line of the log: the event, its position in the chain and
// the SHA-256 of the previous line's exact bytes.
type Entry struct {
	Seq  int64  `json:"seq"`
	Prev string `json:"prev"`
	Event
	// Torn is set on a TornLine entry: the bytes it accounts for.
	Torn *Torn `json:"torn,omitempty"`
}

// Torn describes the bytes a crash left between two records (a line cut
// off mid-write, perhaps with what a later, also interrupted, append
// wrote after it). A TornLine entry binds them into the chain by hash, so
// they cannot be swapped for other bytes unnoticed.
type Torn struct {
	Bytes  int64  `json:"bytes"`  // including every newline, the one Append added too
	Lines  int    `json:"lines"`  // physical lines
	SHA256 string `json:"sha256"` // of those exact bytes
}

// Head is the end of a chain: the last record's seq and the hash of its
// line. Saved somewhere else, it lets Verify detect lines deleted from the
// end (VerifyOptions.ExpectSeq, ExpectHash).
type Head struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// hashLine is the hex SHA-256 of a line's bytes, newline excluded.
func hashLine(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// decodeLine parses a line as an entry; ok is false for anything that is
// not one (torn bytes, foreign text, an entry without seq or prev).
func decodeLine(b []byte) (Entry, bool) {
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 || b[0] != '{' {
		return Entry{}, false
	}
	var e Entry
	if json.Unmarshal(b, &e) != nil || e.Seq < 1 || !isHash(e.Prev) || e.Kind == "" {
		return Entry{}, false
	}
	return e, true
}

// chainFields are the fields of an entry the chain needs: decoding only
// them makes Verify about twice as fast as decoding whole entries.
type chainFields struct {
	Seq  int64  `json:"seq"`
	Prev string `json:"prev"`
	Kind Kind   `json:"kind"`
	Torn *Torn  `json:"torn"`
}

// decodeChain is decodeLine for Verify: the same lines are records.
func decodeChain(b []byte) (chainFields, bool) {
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 || b[0] != '{' {
		return chainFields{}, false
	}
	var c chainFields
	if json.Unmarshal(b, &c) != nil || c.Seq < 1 || !isHash(c.Prev) || c.Kind == "" {
		return chainFields{}, false
	}
	return c, true
}

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Limits of an event's text fields, so a line stays far below MaxLine
// even when JSON escapes every byte.
const (
	maxTarget = 2048
	maxReason = 1024
	maxField  = 256
)

// clipped returns e with every text field cut to its limit (on a rune
// boundary, marked with "…").
func clipped(e Event) Event {
	e.Session = clip(e.Session, maxField)
	e.Macro = clip(e.Macro, maxField)
	e.Identity = clip(e.Identity, maxField)
	e.Channel = Channel(clip(string(e.Channel), maxField))
	e.Who = clip(e.Who, maxField)
	e.Secret = clip(e.Secret, maxField)
	e.Kind = Kind(clip(string(e.Kind), maxField))
	e.Target = clip(e.Target, maxTarget)
	e.Reason = clip(e.Reason, maxReason)
	return e
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
