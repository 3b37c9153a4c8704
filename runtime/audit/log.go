package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultFile is where a deployment's audit log goes unless configured
// otherwise (macrokit.yaml `audit:`), beside the session logs' directory
// but never inside it.
const DefaultFile = ".macrokit/audit.jsonl"

// ErrClosed is the error of an Append after Close.
var ErrClosed = errors.New("audit log: closed")

// ErrDamaged means the end of the file is not audit records and is too
// long to be what a crash leaves: it is not an audit log, or it was
// damaged. Append refuses to chain onto it; `audit verify` says where.
var ErrDamaged = errors.New("the end of the file is not audit records")

// Limits of reading a log's tail: the first read, and how far back Open
// and Append look for the last record before calling the file damaged.
const (
	tailChunk = 8 << 10
	maxDebris = 4 * MaxLine
)

// Log is an append-only, hash-chained JSONL audit log, one [Entry] a line.
// Every Append takes an exclusive flock on the file, reads the last line
// when another writer (another process) appended since, writes its line
// with one write on an O_APPEND descriptor and fsyncs it, so goroutines
// and processes (run, serve) can share one file and the chain stays
// whole.
//
// A crash mid-write leaves a torn last line. The next Append does not
// chain onto it: it first writes a TornLine entry that chains onto the
// last complete record and carries the torn bytes' length and SHA-256,
// then its own entry. Verify reports a torn line that nothing accounted
// for yet.
type Log struct {
	path string

	mu     sync.Mutex
	f      *os.File
	size   int64 // the file's size when head was read or written; -1 unknown
	head   Head
	closed bool
}

// Open opens (creating it and its directory) the log at path and reads its
// tail to find the last record. It fails on a file whose end is not audit
// records (ErrDamaged).
func Open(path string) (*Log, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	l := &Log{path: path, f: f, size: -1}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("audit log: lock %s: %w", path, err)
	}
	t, err := readTail(f)
	_ = unlockFile(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	l.head = t.head
	if !t.dirty() {
		l.size = t.size
	}
	return l, nil
}

// Path is the log file's path.
func (l *Log) Path() string { return l.path }

// Head is the last record this Log read or wrote.
func (l *Log) Head() Head {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head
}

// Close closes the file; later Appends fail with ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	return l.f.Close()
}

// Append writes e as the next line of the chain (Time set when zero, text
// fields clipped to their limits) and fsyncs it. An error means the event
// is not in the log.
func (l *Log) Append(_ context.Context, e Event) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	e = clipped(e)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if err := lockFile(l.f); err != nil {
		return fmt.Errorf("audit log: lock %s: %w", l.path, err)
	}
	defer func() { _ = unlockFile(l.f) }()
	if err := l.sync(); err != nil {
		l.size = -1
		return fmt.Errorf("audit log %s: %w", l.path, err)
	}
	if err := l.write(nil, Entry{Event: e}); err != nil {
		l.size = -1
		return fmt.Errorf("audit log %s: %w", l.path, err)
	}
	return nil
}

// sync brings head up to date with the file under the lock: re-reading
// the tail when the file changed since this Log last wrote it, and
// accounting for torn bytes before anything chains after them.
func (l *Log) sync() error {
	st, err := l.f.Stat()
	if err != nil {
		return err
	}
	if st.Size() == l.size {
		return nil
	}
	t, err := readTail(l.f)
	if err != nil {
		return err
	}
	l.head, l.size = t.head, t.size
	switch {
	case len(t.debris) > 0:
		d := t.debris
		var prefix []byte
		if t.needNL {
			prefix = []byte("\n")
			d = append(d[:len(d):len(d)], '\n')
		}
		torn := &Torn{Bytes: int64(len(d)), Lines: bytes.Count(d, []byte("\n")), SHA256: hashLine(d)}
		ev := Event{Time: time.Now().UTC(), Kind: TornLine,
			Reason: fmt.Sprintf("%d byte(s) after record %d are not a complete record (a crash mid-write?); this entry binds them by hash", len(t.debris), t.head.Seq)}
		return l.write(prefix, Entry{Event: ev, Torn: torn})
	case t.needNL:
		// The last record is whole but lost its newline: end the line.
		return l.writeRaw([]byte("\n"))
	}
	return nil
}

// write appends prefix and en as one line chained onto head.
func (l *Log) write(prefix []byte, en Entry) error {
	en.Seq, en.Prev = l.head.Seq+1, l.head.Hash
	b, err := json.Marshal(en)
	if err != nil {
		return err
	}
	if len(b) > MaxLine {
		return fmt.Errorf("an entry of %d bytes is longer than %d", len(b), MaxLine)
	}
	buf := make([]byte, 0, len(prefix)+len(b)+1)
	buf = append(append(append(buf, prefix...), b...), '\n')
	if err := l.writeRaw(buf); err != nil {
		return err
	}
	l.head = Head{Seq: en.Seq, Hash: hashLine(b)}
	return nil
}

// writeRaw is one write and an fsync; size follows the bytes written.
func (l *Log) writeRaw(b []byte) error {
	if _, err := l.f.Write(b); err != nil {
		return err
	}
	if err := l.f.Sync(); err != nil {
		return err
	}
	l.size += int64(len(b))
	return nil
}

// tail is what the end of a log file says: the last record, and what
// follows it.
type tail struct {
	head   Head
	size   int64
	debris []byte // bytes after the last record's newline: not records
	needNL bool   // the file does not end with a newline
}

func (t tail) dirty() bool { return len(t.debris) > 0 || t.needNL }

// readTail reads backwards from the end of f, in growing chunks, until it
// finds the last line that is a record (or the start of the file).
func readTail(f *os.File) (tail, error) {
	st, err := f.Stat()
	if err != nil {
		return tail{}, err
	}
	size := st.Size()
	if size == 0 {
		return tail{head: Head{Hash: Genesis}}, nil
	}
	for chunk := int64(tailChunk); ; chunk *= 4 {
		chunk = min(chunk, size)
		buf := make([]byte, chunk)
		if _, err := f.ReadAt(buf, size-chunk); err != nil && !errors.Is(err, io.EOF) {
			return tail{}, err
		}
		t, found := scanTail(buf, chunk == size)
		if found {
			t.size = size
			if len(t.debris) > maxDebris {
				return tail{}, fmt.Errorf("%w: the last %d bytes are not records (run audit verify)", ErrDamaged, len(t.debris))
			}
			return t, nil
		}
		if chunk >= maxDebris+MaxLine {
			return tail{}, fmt.Errorf("%w: no record in the last %d bytes (run audit verify)", ErrDamaged, chunk)
		}
	}
}

// scanTail finds the last record in buf, the end of a file; atStart says
// buf begins at the file's first byte (else its first line may be cut and
// found is false when the search reaches it).
func scanTail(buf []byte, atStart bool) (t tail, found bool) {
	end := len(buf)
	t.needNL = buf[end-1] != '\n'
	pos := end // the current line is buf[start:pos]
	if !t.needNL {
		pos = end - 1
	}
	for {
		start := bytes.LastIndexByte(buf[:pos], '\n') + 1
		if start == 0 && !atStart {
			return tail{}, false
		}
		if e, ok := decodeLine(buf[start:pos]); ok {
			t.head = Head{Seq: e.Seq, Hash: hashLine(buf[start:pos])}
			if pos < end {
				t.debris = buf[pos+1:]
			}
			return t, true
		}
		if start == 0 {
			// Nothing in the file is a record: all of it is debris of a
			// first append cut short (or not a log; the bound decides).
			t.head = Head{Hash: Genesis}
			t.debris = buf
			return t, true
		}
		pos = start - 1
	}
}
