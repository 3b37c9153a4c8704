package sessionlog

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultMaxFileBytes is the size after which a Writer continues in a new
// file (see [Writer.SetMaxFileBytes]).
const DefaultMaxFileBytes = 64 << 20

// Writer appends to the JSONL log of one session. Every Append is
// written and fsync'd before it returns, so a crash loses at most the record
// being written (the reader tolerates that torn line). Each line is valid
// UTF-8 JSON of at most [MaxLineBytes].
//
// A file that reaches its size limit is continued in a new one,
// dir/<id>.<n>.jsonl, whose records carry the session id <id>.<n> and whose
// first line repeats the log's first system record with "continued_from"
// (the previous part's id) and "part" added: each part is a session of
// its own to `sessions` and `gate`.
type Writer struct {
	mu       sync.Mutex
	f        *os.File
	dir      string
	path     string
	baseID   string
	id       string
	part     int
	size     int64   // bytes in the current file
	maxBytes int64   // 0: no rotation
	header   *Record // the first record, when a system one (repeated atop each part)
	appended bool
	secrets  []string
	closed   bool
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
	l := &Writer{dir: dir, baseID: id, maxBytes: DefaultMaxFileBytes}
	if err := l.openPart(id); err != nil {
		return nil, err
	}
	return l, nil
}

// openPart opens (or appends to) the file of session id as the current one.
func (l *Writer) openPart(id string) error {
	path := filepath.Join(l.dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("session log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("session log: %w", err)
	}
	l.f, l.path, l.id, l.size = f, path, id, st.Size()
	return nil
}

// SetMaxFileBytes sets the size after which the log continues in a new
// file (default [DefaultMaxFileBytes]; n <= 0: never).
func (l *Writer) SetMaxFileBytes(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.maxBytes = max(n, 0)
}

// ID is the session id (of the current part, after a rotation).
func (l *Writer) ID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

// Path is the current log file's path.
func (l *Writer) Path() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.path
}

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

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("session log: closed")

// Append writes one record, redacted and bounded (see [MaxLineBytes]), and
// fsyncs the file. An error means the record is not in the log: a write
// that failed half-way is cut off again, so the next line starts clean.
func (l *Writer) Append(r Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if r.TS.IsZero() {
		r.TS = time.Now().UTC()
	}
	if !l.appended && r.Type == RecSystem {
		h := r
		l.header = &h
	}
	l.appended = true
	line, err := l.encode(r)
	if err != nil {
		return err
	}
	if l.maxBytes > 0 && l.size > 0 && l.size+int64(len(line)) > l.maxBytes {
		if err := l.rotate(); err != nil {
			return err
		}
		if line, err = l.encode(r); err != nil { // the new part's session id
			return err
		}
	}
	return l.write(line)
}

// encode is r as a line of the current part.
func (l *Writer) encode(r Record) ([]byte, error) {
	r.V = Version
	r.Session = l.id
	return encodeLine(r, l.secrets)
}

// write appends and syncs one encoded line.
func (l *Writer) write(line []byte) error {
	if n, err := l.f.Write(line); err != nil {
		if n > 0 {
			_ = l.f.Truncate(l.size) // no torn line for the next record to be glued to
		}
		return fmt.Errorf("session log: write: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		_ = l.f.Truncate(l.size) // not durable: not in the log
		return fmt.Errorf("session log: sync: %w", err)
	}
	l.size += int64(len(line))
	return nil
}

// rotate continues the log in its next part, which starts with the header.
func (l *Writer) rotate() error {
	prev := l.id
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("session log: %w", err)
	}
	l.part++
	if err := l.openPart(fmt.Sprintf("%s.%d", l.baseID, l.part)); err != nil {
		l.closed = true // nothing left to write to
		return err
	}
	if l.header == nil {
		return nil
	}
	h := *l.header
	h.TS = time.Now().UTC()
	h.Data = maps.Clone(h.Data)
	if h.Data == nil {
		h.Data = map[string]any{}
	}
	h.Data["continued_from"], h.Data["part"] = prev, l.part
	line, err := l.encode(h)
	if err != nil {
		return err
	}
	return l.write(line)
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
