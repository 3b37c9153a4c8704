package sessionlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/internal/editdist"
)

// DefaultDir is where session logs go unless configured otherwise.
const DefaultDir = ".macrokit/sessions"

// Summary is one session log at a glance, as `sessions list` shows it.
type Summary struct {
	ID    string    `json:"id"`
	Path  string    `json:"path"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Binary and Command are what wrote the log (e.g. "acme", "chat").
	Binary  string `json:"binary,omitempty"`
	Command string `json:"command,omitempty"`
	Model   string `json:"model,omitempty"`
	// Turns is the highest turn number; Calls counts tool calls (macros and
	// raw tools); Failures counts calls that did not succeed.
	Turns    int `json:"turns"`
	Calls    int `json:"calls"`
	Failures int `json:"failures"`
	// Interrupted counts calls with no result in the log: the process died
	// (or the result could not be written) while they ran, so their effect
	// may or may not have happened. They are not failures, nor successes.
	Interrupted int `json:"interrupted"`
	BailOuts    int `json:"bail_outs"`
	// Torn counts lines skipped as torn writes, foreign JSON or oversized.
	Torn int `json:"torn"`
}

// Session is a whole session log, as `sessions show` prints it.
type Session struct {
	Summary Summary  `json:"summary"`
	Records []Record `json:"records"`
	Stats   Stats    `json:"stats"`
}

// ReadFile reads the session log at path whole, tolerating torn lines
// (see [Read]). For a log of any size, use [Digest].
func ReadFile(path string) (*Session, error) {
	s := &Session{Records: []Record{}}
	d, err := Digest(path)
	if err != nil {
		return nil, err
	}
	if err := d.Each(func(r Record, _ bool) error {
		s.Records = append(s.Records, r)
		return nil
	}); err != nil {
		return nil, err
	}
	s.Summary, s.Stats = d.Summary, d.Stats
	return s, nil
}

// maxPending bounds how many calls waiting for their result a summary
// tracks by id; beyond it, calls are only counted.
const maxPending = 1 << 16

// Digested is one pass over a session log: its summary and stats, and
// which of its records are interrupted calls. Each reads the records
// again, one at a time, so neither holds the log in memory.
type Digested struct {
	Summary Summary
	Stats   Stats
	path    string
	// interrupted are the record numbers of the calls without a result.
	interrupted map[int]bool
}

// Digest streams the session log at path once (see [Digested]).
func Digest(path string) (*Digested, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sz := summarizer{sum: Summary{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Path: path}, pending: map[string][]int{}}
	st, err := Read(f, func(r Record) error {
		sz.add(r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &Digested{Stats: st, path: path, interrupted: map[int]bool{}}
	sz.sum.Torn = st.Torn + st.Foreign + st.Oversized
	for _, idx := range sz.pending {
		for _, i := range idx {
			d.interrupted[i] = true
		}
	}
	sz.sum.Interrupted = len(d.interrupted) + sz.overflow
	d.Summary = sz.sum
	return d, nil
}

// Each calls fn for every record of the digested log, in order, saying
// whether it is a call that never got a result. Records appended after
// Digest read the file are left out.
func (d *Digested) Each(fn func(r Record, interrupted bool) error) error {
	f, err := os.Open(d.path)
	if err != nil {
		return err
	}
	defer f.Close()
	i := 0
	errDone := errors.New("done")
	_, err = Read(f, func(r Record) error {
		if i >= d.Stats.Records {
			return errDone
		}
		ferr := fn(r, d.interrupted[i])
		i++
		return ferr
	})
	if err != nil && !errors.Is(err, errDone) {
		return fmt.Errorf("%s: %w", d.path, err)
	}
	return nil
}

// summarizer builds a Summary record by record.
type summarizer struct {
	sum     Summary
	n       int              // records seen
	pending map[string][]int // call id -> record numbers of calls waiting for a result
	npend   int
	// overflow counts calls not tracked (maxPending reached) still
	// waiting for a result.
	overflow int
}

func (z *summarizer) add(r Record) {
	sum := &z.sum
	i := z.n
	z.n++
	if i == 0 {
		sum.Start = r.TS
		if r.Session != "" {
			sum.ID = r.Session
		}
	} else if r.TS.Before(sum.Start) {
		sum.Start = r.TS
	}
	if r.TS.After(sum.End) {
		sum.End = r.TS
	}
	sum.Turns = max(sum.Turns, r.Turn)
	switch r.Type {
	case RecToolCall:
		sum.Calls++
		if z.npend >= maxPending {
			z.overflow++
			return
		}
		z.pending[r.CallID] = append(z.pending[r.CallID], i)
		z.npend++
	case RecToolResult:
		if !r.OK {
			sum.Failures++
		}
		if idx := z.pending[r.CallID]; len(idx) > 0 {
			// The latest call with that id still waiting is the one.
			if len(idx) == 1 {
				delete(z.pending, r.CallID)
			} else {
				z.pending[r.CallID] = idx[:len(idx)-1]
			}
			z.npend--
		} else if z.overflow > 0 {
			z.overflow--
		}
	case RecSystem:
		switch r.Event {
		case "session", "run", "serve":
			sum.Binary = firstOf(sum.Binary, str(r.Data["binary"]))
			sum.Command = firstOf(sum.Command, str(r.Data["command"]), r.Event)
			sum.Model = firstOf(sum.Model, str(r.Data["model"]))
		case "bail_out":
			sum.BailOuts++
		}
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// List summarizes every *.jsonl log in dir, oldest first. A
// missing directory has no sessions.
func List(dir string) ([]Summary, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := []Summary{}
	for _, p := range paths {
		d, err := Digest(p)
		if err != nil {
			return nil, err
		}
		out = append(out, d.Summary)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Find resolves what a user typed to a log file: a path, an id, a
// unique id prefix, or "last" (the most recent session).
func Find(dir, ref string) (string, error) {
	if st, err := os.Stat(ref); err == nil && !st.IsDir() {
		return ref, nil
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	ids := make([]string, len(paths))
	for i, p := range paths {
		ids[i] = strings.TrimSuffix(filepath.Base(p), ".jsonl")
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return "", fmt.Errorf("no sessions in %s", dir)
	}
	if ref == "last" || ref == "latest" {
		list, err := List(dir)
		if err != nil {
			return "", err
		}
		return list[len(list)-1].Path, nil
	}
	var matches []string
	for _, id := range ids {
		if id == ref {
			return filepath.Join(dir, id+".jsonl"), nil
		}
		if strings.HasPrefix(id, ref) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 1:
		return filepath.Join(dir, matches[0]+".jsonl"), nil
	case 0:
		best, bd := "", 4
		for _, id := range ids {
			if d := editdist.Distance(ref, id); d < bd {
				best, bd = id, d
			}
		}
		hint := ""
		if best != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", best)
		}
		return "", fmt.Errorf("no session %q in %s%s", ref, dir, hint)
	}
	return "", fmt.Errorf("%q matches %d sessions (%s): give more of the id", ref, len(matches), strings.Join(matches, ", "))
}
