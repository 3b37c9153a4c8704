package gate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// Scanner reads session logs one line at a time and collects findings and
// workflow groups. Memory stays flat in the size of the input: lines are
// bounded, only the current turn is buffered, and each group keeps at most
// MaxSamples occurrences (plus value statistics). Use NewScanner, then Read
// or ReadPaths, then Report.
type Scanner struct {
	opts Options
	st   Stats
	br   *bufio.Reader
	long []byte // a line longer than the bufio buffer, assembled
	f    lineFields

	shape bytes.Buffer // the flagged turn's shape, reused

	file     string
	sessions map[string]struct{}
	t        turnBuf

	findings []Finding
	groups   map[string]*group
	order    []*group // in order of first occurrence
}

// NewScanner returns a scanner with opts (zero fields take the defaults).
func NewScanner(opts Options) *Scanner {
	opts = opts.withDefaults()
	return &Scanner{
		opts:     opts,
		br:       bufio.NewReaderSize(nil, min(256<<10, max(4<<10, opts.MaxLineBytes+1))),
		sessions: map[string]struct{}{},
		groups:   map[string]*group{},
	}
}

// Scan reads every session log under paths (files, or directories walked
// for *.jsonl) and returns the report.
func Scan(paths []string, opts Options) (*Report, error) {
	s := NewScanner(opts)
	if err := s.ReadPaths(paths); err != nil {
		return nil, err
	}
	return s.Report(), nil
}

// LogFiles expands paths: a file is taken as is, a directory is walked
// (recursively, sorted, skipping directories whose name starts with ".")
// for *.jsonl files. A missing path, or a directory without logs, is an
// *InputError.
func LogFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &InputError{Path: p, Err: err}
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		n := len(out)
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), ".jsonl") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, &InputError{Path: p, Err: err}
		}
		if len(out) == n {
			return nil, &InputError{Path: p, Err: ErrNoLogs}
		}
		sort.Strings(out[n:])
	}
	return out, nil
}

// ReadPaths reads the logs LogFiles finds under paths.
func (s *Scanner) ReadPaths(paths []string) error {
	files, err := LogFiles(paths)
	if err != nil {
		return err
	}
	for _, p := range files {
		if err := s.ReadFile(p); err != nil {
			return err
		}
	}
	return nil
}

// ReadFile reads one log file.
func (s *Scanner) ReadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return &InputError{Path: path, Err: err}
	}
	defer f.Close()
	return s.Read(path, f)
}

// Read reads one log stream; name identifies it in findings (a file path).
// Torn, foreign and oversized lines are counted, never fatal; only a read
// error is returned (as an *InputError).
func (s *Scanner) Read(name string, r io.Reader) error {
	s.st.Files++
	s.file = name
	s.br.Reset(r)
	defer func() {
		s.endTurn()
		s.br.Reset(nil)
	}()
	max := s.opts.MaxLineBytes
	for {
		line, err := s.br.ReadSlice('\n')
		s.st.Bytes += int64(len(line))
		if errors.Is(err, bufio.ErrBufferFull) {
			s.long = append(s.long[:0], line...)
			over := len(s.long) > max
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = s.br.ReadSlice('\n')
				s.st.Bytes += int64(len(line))
				if !over {
					if len(s.long)+len(line) > max {
						over = true
						s.long = s.long[:0]
					} else {
						s.long = append(s.long, line...)
					}
				}
			}
			if over {
				s.st.Lines++
				s.st.Oversized++
				line = nil
			} else {
				line = s.long
			}
		}
		if len(line) > max {
			s.st.Lines++
			s.st.Oversized++
		} else if !blank(line) {
			s.line(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &InputError{Path: name, Err: err}
		}
	}
}

func blank(b []byte) bool {
	for _, c := range b {
		if !isWS(c) {
			return false
		}
	}
	return true
}

// line handles one non-blank line.
func (s *Scanner) line(b []byte) {
	s.st.Lines++
	f := &s.f
	if !scanLine(b, f) {
		s.st.Torn++
		return
	}
	if !f.object || f.v != sessionlog.Version || !f.typOK || len(f.typ) == 0 {
		s.st.Foreign++
		return
	}
	s.st.Records++
	var typ sessionlog.RecordType
	switch string(f.typ) {
	case string(sessionlog.RecUser):
		typ = sessionlog.RecUser
	case string(sessionlog.RecToolCall):
		typ = sessionlog.RecToolCall
	case string(sessionlog.RecToolResult):
		typ = sessionlog.RecToolResult
	default:
		return // assistant, system and future types carry nothing the gate reads
	}
	s.enterTurn(f)
	t := &s.t
	switch typ {
	case sessionlog.RecUser:
		if t.user.n == 0 && len(f.text) > 0 {
			t.user = t.keep(f.text)
		}
	case sessionlog.RecToolCall:
		if !f.raw {
			s.st.MacroCalls++
			if len(t.macros) < maxCallsPerTurn {
				t.macros = append(t.macros, t.keep(f.tool))
			}
			return
		}
		s.st.RawCalls++
		t.rawCalls++
		if len(t.calls) >= maxCallsPerTurn || t.full(len(f.args)+len(f.tool)+len(f.callID), s.opts.MaxTurnBytes) {
			t.truncated = true
			return
		}
		t.calls = append(t.calls, pendingCall{tool: t.keep(f.tool), callID: t.keep(f.callID), args: t.keep(f.args)})
	case sessionlog.RecToolResult:
		if !f.raw {
			return
		}
		c := t.find(f.callID)
		if c == nil {
			return
		}
		c.done, c.ok = true, f.ok
		if !f.ok {
			c.errv = t.keep(f.errv)
			return
		}
		switch string(t.span(c.tool)) {
		case toolSnapshot, toolExtract:
			// Their results are reads; nothing in them becomes a step or
			// a check.
		case toolHTTP:
			c.bodyKind = jsonKind(f.result)
		default:
			if t.full(len(f.result)+len(f.data), s.opts.MaxTurnBytes) {
				t.truncated = true
				return
			}
			c.result, c.data = t.keep(f.result), t.keep(f.data)
		}
	}
}

// enterTurn ends the buffered turn when f belongs to another one.
func (s *Scanner) enterTurn(f *lineFields) {
	t := &s.t
	noSes := !f.hasSes || len(f.session) == 0
	same := t.session == s.file
	if !noSes {
		same = !f.sesEsc && string(f.session) == t.session
	}
	if t.active && t.turn == f.turn && same {
		return
	}
	s.endTurn()
	t.active = true
	t.turn = f.turn
	switch {
	case same:
	case noSes:
		t.session = s.file // a log without session ids: one session per file
	default:
		t.session = decodeString(f.session, f.sesEsc)
	}
	if _, seen := s.sessions[t.session]; !seen {
		s.sessions[t.session] = struct{}{}
		s.st.Sessions++
	}
}

// endTurn closes the buffered turn: a finding when it had enough raw calls.
func (s *Scanner) endTurn() {
	t := &s.t
	if !t.active {
		return
	}
	s.st.Turns++
	for i := range t.calls {
		if c := &t.calls[i]; !c.done {
			// No result: the process died while it ran (or the result was
			// never written). Its effect is uncertain: never a success, so
			// never a step of a suggested spec.
			s.st.Interrupted++
			c.done, c.ok, c.errv = true, false, t.keep(interruptedErr)
		}
	}
	if t.rawCalls >= s.opts.Threshold {
		s.flag()
	}
	t.reset()
}

// interruptedErr is the error an interrupted raw call is given.
var interruptedErr = []byte(`{"code":"interrupted","message":"no result in the log: the effect may have happened"}`)

// decodeString decodes a JSON string token's contents.
func decodeString(b []byte, esc bool) string {
	if !esc {
		return string(b)
	}
	var s string
	q := make([]byte, 0, len(b)+2)
	q = append(append(append(q, '"'), b...), '"')
	if json.Unmarshal(q, &s) != nil {
		return string(b)
	}
	return s
}

// span is a byte range in a turn's arena.
type span struct{ off, n int }

// pendingCall is one raw call of the buffered turn, as arena ranges.
type pendingCall struct {
	tool, callID, args span
	done, ok           bool
	result, data, errv span
	bodyKind           string
}

// turnBuf buffers one turn. Everything it keeps is copied into one arena
// that is reused from turn to turn, so turns that are not findings cost no
// allocation.
type turnBuf struct {
	active    bool
	session   string
	turn      int64
	arena     []byte
	user      span
	calls     []pendingCall
	macros    []span
	rawCalls  int
	truncated bool
}

func (t *turnBuf) reset() {
	t.active = false
	t.arena = t.arena[:0]
	t.user = span{}
	t.calls = t.calls[:0]
	t.macros = t.macros[:0]
	t.rawCalls = 0
	t.truncated = false
}

func (t *turnBuf) keep(b []byte) span {
	sp := span{off: len(t.arena), n: len(b)}
	t.arena = append(t.arena, b...)
	return sp
}

func (t *turnBuf) span(sp span) []byte { return t.arena[sp.off : sp.off+sp.n] }

func (t *turnBuf) full(n, max int) bool { return len(t.arena)+n > max }

// find returns the latest call with that id still waiting for its result.
func (t *turnBuf) find(id []byte) *pendingCall {
	for i := len(t.calls) - 1; i >= 0; i-- {
		c := &t.calls[i]
		if !c.done && string(t.span(c.callID)) == string(id) {
			return c
		}
	}
	return nil
}
