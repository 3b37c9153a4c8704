package sessionlog

import (
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
	BailOuts int `json:"bail_outs"`
	// Torn counts lines skipped as torn writes or foreign JSON.
	Torn int `json:"torn"`
}

// Session is a whole session log, as `sessions show` prints it.
type Session struct {
	Summary Summary  `json:"summary"`
	Records []Record `json:"records"`
	Stats   Stats    `json:"stats"`
}

// ReadFile reads the session log at path, tolerating torn lines (see
// [Read]).
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Session{Records: []Record{}}
	st, err := Read(f, func(r Record) error {
		s.Records = append(s.Records, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Stats = st
	s.Summary = summarize(path, s.Records, st)
	return s, nil
}

func summarize(path string, recs []Record, st Stats) Summary {
	sum := Summary{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Path: path, Torn: st.Torn + st.Foreign}
	for i, r := range recs {
		if i == 0 || r.TS.Before(sum.Start) {
			sum.Start = r.TS
		}
		if r.TS.After(sum.End) {
			sum.End = r.TS
		}
		sum.Turns = max(sum.Turns, r.Turn)
		switch r.Type {
		case RecToolCall:
			sum.Calls++
		case RecToolResult:
			if !r.OK {
				sum.Failures++
			}
		case RecSystem:
			switch r.Event {
			case "session", "run":
				sum.Binary = firstOf(sum.Binary, str(r.Data["binary"]))
				sum.Command = firstOf(sum.Command, str(r.Data["command"]), r.Event)
				sum.Model = firstOf(sum.Model, str(r.Data["model"]))
			case "bail_out":
				sum.BailOuts++
			}
		}
	}
	if len(recs) > 0 && recs[0].Session != "" {
		sum.ID = recs[0].Session
	}
	return sum
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
		s, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s.Summary)
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
