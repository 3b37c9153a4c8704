package batch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Status is a row's delivery status.
type Status string

// The delivery statuses. Only OK counts as delivered; Unverified ran but
// an effect went unchecked; Uncertain started and has no outcome (the
// process died), so whether it acted is not known.
const (
	StatusOK         Status = "ok"
	StatusFailed     Status = "failed"
	StatusUnverified Status = "unverified"
	StatusSkipped    Status = "skipped"
	StatusUncertain  Status = "uncertain"
)

// Entry is one line of a batch journal: a row started, or a row's outcome.
type Entry struct {
	Type   string    `json:"type"` // "start" or "end"
	Key    string    `json:"key"`
	Line   int       `json:"line"`
	At     time.Time `json:"at"`
	Status Status    `json:"status,omitempty"`
	CallID string    `json:"call_id,omitempty"`
	// Session is the id of the session log holding the row's call.
	Session string          `json:"session,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *EntryError     `json:"error,omitempty"`
	// Failed are the failing checks' expected and actual (end of a failed row).
	Failed []FailedCheck `json:"failed_checks,omitempty"`
	// Note says how an end was reached other than by running the row: an
	// uncertain row its macro's done check found already done.
	Note string `json:"note,omitempty"`
	// Worker names the fleet worker whose stored result the end is (a
	// batch run on a worker fleet).
	Worker string `json:"worker,omitempty"`
}

// EntryError is a failed row's error code and message.
type EntryError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// FailedCheck is one check that did not pass.
type FailedCheck struct {
	Step     string `json:"step"`
	Kind     string `json:"kind"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// Journal is a batch's durable record: every row's start is on disk before
// the row runs and its end after; each line is fsync'd, so after a crash a
// resume knows which rows ended and which may have acted.
type Journal struct {
	mu sync.Mutex
	f  *os.File
}

// OpenJournal opens (creating, 0600) the journal at path for appending.
func OpenJournal(path string) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &Journal{f: f}, nil
}

// Append writes one entry and syncs it.
func (j *Journal) Append(e Entry) error {
	if e.At.IsZero() {
		e.At = time.Now().UTC()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return j.f.Sync()
}

// Close closes the journal.
func (j *Journal) Close() error { return j.f.Close() }

// State is what a journal says of each row key: its last end status, or
// uncertain for a start without an end.
type State map[string]Entry

// ReadJournal reads a journal; a torn last line (a crash mid-write) is
// ignored, a missing file is an empty state.
func ReadJournal(path string) (State, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st := State{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Key == "" {
			continue // a torn line
		}
		switch e.Type {
		case "start":
			if prev, ok := st[e.Key]; !ok || prev.Type == "end" {
				e.Status = StatusUncertain
				st[e.Key] = e
			}
		case "end":
			st[e.Key] = e
		default:
			return nil, fmt.Errorf("%s:%d: unknown journal entry %q", path, n, e.Type)
		}
	}
	return st, sc.Err()
}
