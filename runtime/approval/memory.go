package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/internal/atomicfile"
)

// Decision is what is remembered for a tool.
type Decision string

// The decisions. Ask is the default and is never stored.
const (
	Ask    Decision = "ask"
	Always Decision = "always"
	Never  Decision = "never"
)

// ParseDecision reads "ask", "always" or "never" (case-insensitive).
func ParseDecision(s string) (Decision, error) {
	switch d := Decision(strings.ToLower(strings.TrimSpace(s))); d {
	case Ask, Always, Never:
		return d, nil
	}
	return "", fmt.Errorf("%q is not a decision: ask, always or never", s)
}

// DefaultFile is where a project keeps its memory, relative to the
// project's directory.
const DefaultFile = ".macrokit/approvals.json"

// maxFile bounds what Open reads: a memory is a few lines per tool.
const maxFile = 4 << 20

// Entry is one remembered decision.
type Entry struct {
	Tool     string    `json:"tool"`
	Decision Decision  `json:"decision"`
	Updated  time.Time `json:"updated"`
	By       string    `json:"by,omitempty"` // who set it: "terminal", "approvals set", ...
}

// fileFormat is the file's shape.
type fileFormat struct {
	Version int     `json:"version"`
	Tools   []Entry `json:"tools"`
}

// Memory is the remembered decisions of one file. It is safe for
// concurrent use; every change is written to the file at once, atomically
// (a temporary file renamed over it), so a crash leaves the old or the new
// memory, never half of one.
type Memory struct {
	path string
	mu   sync.Mutex
	m    map[string]Entry
}

// ErrFormat is the error of a memory file that is not one.
var ErrFormat = errors.New("not an approvals file")

// Open reads the memory at path; a missing file is an empty memory (the
// file is created by the first change).
func Open(path string) (*Memory, error) {
	mem := &Memory{path: path, m: map[string]Entry{}}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return mem, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrFormat, maxFile)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ff fileFormat
	if err := dec.Decode(&ff); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrFormat, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: %w: data after the object", path, ErrFormat)
	}
	if ff.Version != 1 {
		return nil, fmt.Errorf("%s: %w: version %d, want 1", path, ErrFormat, ff.Version)
	}
	for i, e := range ff.Tools {
		if e.Tool == "" || (e.Decision != Always && e.Decision != Never) {
			return nil, fmt.Errorf("%s: %w: tools[%d]: want a tool and a decision always or never", path, ErrFormat, i)
		}
		mem.m[e.Tool] = e
	}
	return mem, nil
}

// Path is the memory's file.
func (m *Memory) Path() string { return m.path }

// Get returns the decision for tool: Ask unless one is stored. A nil
// Memory always asks.
func (m *Memory) Get(tool string) Decision {
	if m == nil {
		return Ask
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.m[tool]; ok {
		return e.Decision
	}
	return Ask
}

// Set stores d for tool (Ask forgets it) and writes the file; by says who
// set it. On a write error the memory is unchanged.
func (m *Memory) Set(tool string, d Decision, by string) error {
	if strings.TrimSpace(tool) == "" {
		return errors.New("no tool name")
	}
	if _, err := ParseDecision(string(d)); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	next := make(map[string]Entry, len(m.m)+1)
	for k, v := range m.m {
		next[k] = v
	}
	if d == Ask {
		delete(next, tool)
	} else {
		next[tool] = Entry{Tool: tool, Decision: d, Updated: time.Now().UTC().Truncate(time.Second), By: by}
	}
	if err := m.write(next); err != nil {
		return err
	}
	m.m = next
	return nil
}

// Reset forgets every decision and writes the (empty) file.
func (m *Memory) Reset() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.write(map[string]Entry{}); err != nil {
		return err
	}
	m.m = map[string]Entry{}
	return nil
}

// List returns the stored decisions by tool name.
func (m *Memory) List() []Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return sorted(m.m)
}

func sorted(m map[string]Entry) []Entry {
	out := make([]Entry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out
}

// write replaces the file with entries: a temporary file in the same
// directory, synced, then renamed over it.
func (m *Memory) write(entries map[string]Entry) error {
	b, err := json.MarshalIndent(fileFormat{Version: 1, Tools: sorted(entries)}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(m.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(m.path, 0o644, append(b, '\n'))
}
