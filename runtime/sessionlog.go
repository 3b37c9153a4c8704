package runtime

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/engine"
)

// DefaultSessionDir is where session logs go unless configured otherwise.
const DefaultSessionDir = ".macrokit/sessions"

// RecordType names a session-log record.
type RecordType string

// Session-log record types.
const (
	RecUser       RecordType = "user"
	RecToolCall   RecordType = "tool_call"
	RecToolResult RecordType = "tool_result"
	RecAssistant  RecordType = "assistant"
	RecSystem     RecordType = "system"
)

// LogVersion is the session-log record format version.
const LogVersion = 1

// Record is one line of a session log. Which fields are set depends on Type.
type Record struct {
	V       int        `json:"v"`
	TS      time.Time  `json:"ts"`
	Session string     `json:"session"`
	Turn    int        `json:"turn"`
	Type    RecordType `json:"type"`

	// user, assistant, system
	Text string `json:"text,omitempty"`

	// tool_call and tool_result
	CallID string          `json:"call_id,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Raw    bool            `json:"raw,omitempty"` // a raw (non-macro) tool, e.g. page_click
	Args   json.RawMessage `json:"args,omitempty"`

	// tool_result
	OK           bool                 `json:"ok,omitempty"`
	Result       json.RawMessage      `json:"result,omitempty"`
	Error        *ErrorInfo           `json:"error,omitempty"`
	Verification *VerificationSummary `json:"verification,omitempty"`
	DurationMS   int64                `json:"duration_ms,omitempty"`

	// system: a machine-readable event name (bail_out, escalated, approval, ...)
	Event string         `json:"event,omitempty"`
	Data  map[string]any `json:"data,omitempty"`
}

// ErrorInfo is a structured error with a stable code.
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// VerificationSummary counts a macro run's checks and keeps their evidence.
type VerificationSummary struct {
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	Unverifiable int `json:"unverifiable"`
	Checks       any `json:"checks,omitempty"`
}

// SessionLog is an append-only JSONL file for one session. Every Append is
// written and fsync'd before it returns, so a crash loses at most the record
// being written (the reader tolerates that torn line).
type SessionLog struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	id      string
	secrets []string
	closed  bool
}

// NewSessionID returns a sortable, unique session id: UTC time plus 6 random
// bytes.
func NewSessionID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// OpenSessionLog creates (or appends to) dir/<id>.jsonl.
func OpenSessionLog(dir, id string) (*SessionLog, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("session log: invalid session id %q", id)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("session log: %w", err)
	}
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session log: %w", err)
	}
	return &SessionLog{f: f, path: path, id: id}, nil
}

// ID is the session id.
func (l *SessionLog) ID() string { return l.id }

// Path is the log file's path.
func (l *SessionLog) Path() string { return l.path }

// AddSecret registers a value that is replaced by [redacted] in every later
// record.
func (l *SessionLog) AddSecret(v string) {
	if v == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if slices.Contains(l.secrets, v) {
		return // a long-running session registers the same value again and again
	}
	l.secrets = append(l.secrets, v)
}

// Append writes one record, redacted, and fsyncs the file.
func (l *SessionLog) Append(r Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("session log: closed")
	}
	r.V = LogVersion
	r.Session = l.id
	if r.TS.IsZero() {
		r.TS = time.Now().UTC()
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("session log: encode: %w", err)
	}
	line = redactJSON(line, l.secrets)
	line = append(line, '\n')
	if _, err := l.f.Write(line); err != nil {
		return fmt.Errorf("session log: write: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("session log: sync: %w", err)
	}
	return nil
}

// Close closes the file.
func (l *SessionLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	return l.f.Close()
}

// redactJSON replaces secrets inside an encoded JSON line. Secrets are
// matched in their JSON-escaped form so quotes or backslashes in a secret
// cannot leave part of it behind.
func redactJSON(line []byte, secrets []string) []byte {
	if len(secrets) == 0 {
		return line
	}
	escaped := make([]string, 0, len(secrets))
	for _, s := range secrets {
		enc, _ := json.Marshal(s)
		if inner := string(enc[1 : len(enc)-1]); inner != "" {
			escaped = append(escaped, inner)
		}
	}
	return []byte(engine.Redact(string(line), escaped))
}

// ReadStats says what a reader skipped.
type ReadStats struct {
	Lines   int `json:"lines"`
	Records int `json:"records"`
	Torn    int `json:"torn"`    // lines that are not valid JSON (a torn write)
	Foreign int `json:"foreign"` // valid JSON that is not a session record
}

// ReadRecords decodes a session log, skipping (and counting) torn and foreign
// lines instead of failing, so one bad write never hides a whole session.
func ReadRecords(r io.Reader, fn func(Record) error) (ReadStats, error) {
	var st ReadStats
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			st.Lines++
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				st.Torn++
			} else if rec.V == 0 || rec.Type == "" {
				st.Foreign++
			} else {
				st.Records++
				if ferr := fn(rec); ferr != nil {
					return st, ferr
				}
			}
		}
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, err
		}
	}
}
