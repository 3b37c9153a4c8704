package sessionlog

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// Writer appends to the JSONL log of one session. Every Append is
// written and fsync'd before it returns, so a crash loses at most the record
// being written (the reader tolerates that torn line).
type Writer struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	id      string
	secrets []string
	closed  bool
}

// NewID returns a sortable, unique session id: UTC time plus 6 random
// bytes.
func NewID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Open creates (or appends to) dir/<id>.jsonl.
func Open(dir, id string) (*Writer, error) {
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
	return &Writer{f: f, path: path, id: id}, nil
}

// ID is the session id.
func (l *Writer) ID() string { return l.id }

// Path is the log file's path.
func (l *Writer) Path() string { return l.path }

// AddSecret registers a value that is replaced by [redact.Marker] in every later
// record.
func (l *Writer) AddSecret(v string) {
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
func (l *Writer) Append(r Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("session log: closed")
	}
	r.V = Version
	r.Session = l.id
	if r.TS.IsZero() {
		r.TS = time.Now().UTC()
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("session log: encode: %w", err)
	}
	line = redact.JSON(line, l.secrets)
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
func (l *Writer) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	return l.f.Close()
}
