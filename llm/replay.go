package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// Replay is a Model that answers from a Recorder's file, so a recorded run
// can be re-scored under a new runtime without calling the model again.
// Answers are looked up by RequestKey: a prompt the run did not record is a
// miss (ErrReplayMiss), never a guess. When one key was recorded several
// times (the same prompt asked again), the answers come back in recorded
// order, and the last one repeats after that.
//
// A replayed Response is the recorded one, Latency included: the time the
// real model took, so latency columns of an evaluation stay meaningful
// (replaying itself takes microseconds). It is safe for concurrent use.
type Replay struct {
	name    string
	n       int
	skipped int

	mu      sync.Mutex
	answers map[string][]*Response
	next    map[string]int
	// redacted are the lines recorded with secrets redacted, matched when
	// no key does (redactedLine.matches).
	redacted []*redactedLine
}

// redactedLine is a recorded request whose secret values became
// redact.Marker: its canonical JSON cut at each marker.
type redactedLine struct {
	pieces []string
	resp   *Response
}

// matches reports whether canon is the recorded request with some
// non-empty text wherever the marker stands (the first piece a prefix,
// the last a suffix, the others found in order between them), and
// returns those texts: the secrets as the live request spells them in
// JSON. Linear in len(canon) times the number of pieces.
func (l *redactedLine) matches(canon string) ([]string, bool) {
	p := l.pieces
	if len(p) == 1 {
		return nil, canon == p[0]
	}
	last := p[len(p)-1]
	if !strings.HasPrefix(canon, p[0]) || !strings.HasSuffix(canon, last) || len(canon) < len(p[0])+len(last)+len(p)-1 {
		return nil, false
	}
	mid := canon[len(p[0]) : len(canon)-len(last)]
	var caps []string
	for _, piece := range p[1 : len(p)-1] {
		if len(mid) == 0 {
			return nil, false
		}
		i := strings.Index(mid[1:], piece) // at least one character of secret before it
		if i < 0 {
			return nil, false
		}
		caps = append(caps, mid[:1+i])
		mid = mid[1+i+len(piece):]
	}
	if len(mid) == 0 {
		return nil, false
	}
	return append(caps, mid), true
}

// unredact puts the live request's secret back where a redacted answer
// has the marker, when the request held one secret (every capture the
// same); with several the marker stays, since which went where is lost.
func unredact(resp *Response, caps []string) {
	if len(caps) == 0 {
		return
	}
	for _, c := range caps[1:] {
		if c != caps[0] {
			return
		}
	}
	escaped := caps[0]
	var plain string
	if json.Unmarshal([]byte(`"`+escaped+`"`), &plain) != nil {
		return
	}
	resp.Text = strings.ReplaceAll(resp.Text, redact.Marker, plain)
	for i, tc := range resp.ToolCalls {
		resp.ToolCalls[i].Args = json.RawMessage(strings.ReplaceAll(string(tc.Args), redact.Marker, escaped))
	}
}

// ReplayError is a record file that cannot be read: the source name, the
// 1-based line (0 when the problem is not one line's) and what is wrong.
type ReplayError struct {
	Source string
	Line   int
	Msg    string
	Err    error
}

func (e *ReplayError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("replay %s: line %d: %s", e.Source, e.Line, e.Msg)
	}
	return fmt.Sprintf("replay %s: %s", e.Source, e.Msg)
}

// Unwrap returns the cause.
func (e *ReplayError) Unwrap() error { return e.Err }

// LoadReplay reads the record file at path; the model is named after the
// file's base name (see NewReplay), errors name the path.
func LoadReplay(path string) (*Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readReplay(filepath.Base(path), path, f)
}

// NewReplay reads a record file (JSONL, one Recorder line per answer).
// Name() is "replay:" + name. A torn last line (no newline, not JSON: the
// recording run was interrupted mid-write) is skipped and counted by
// Skipped; any other malformed line is a *ReplayError naming it. Blank
// lines are ignored. Each answer is keyed by RequestKey of its recorded
// request (the stored key only when the line has no request), so files stay
// valid when the key derivation changes.
func NewReplay(name string, r io.Reader) (*Replay, error) { return readReplay(name, name, r) }

func readReplay(name, source string, r io.Reader) (*Replay, error) {
	if r == nil {
		return nil, &ReplayError{Source: source, Msg: "no reader"}
	}
	rp := &Replay{name: name, answers: map[string][]*Response{}, next: map[string]int{}}
	br := bufio.NewReader(r)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &ReplayError{Source: source, Line: lineNo, Msg: "read: " + err.Error(), Err: err}
		}
		last := err != nil // no newline: the final line of the file
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			key, resp, red, perr := parseRecordLine(trimmed)
			switch {
			case perr != nil && last:
				rp.skipped++
			case perr != nil:
				return nil, &ReplayError{Source: source, Line: lineNo, Msg: perr.Error(), Err: perr}
			case red != nil:
				red.resp = resp
				rp.redacted = append(rp.redacted, red)
				rp.n++
			default:
				rp.answers[key] = append(rp.answers[key], resp)
				rp.n++
			}
		}
		if last {
			return rp, nil
		}
	}
}

// parseRecordLine decodes one line into its key and response, or for a
// redacted line its pattern.
func parseRecordLine(line []byte) (string, *Response, *redactedLine, error) {
	var rec recordLine
	if err := json.Unmarshal(line, &rec); err != nil {
		return "", nil, nil, fmt.Errorf("not a record (%v)", err)
	}
	switch {
	case rec.V == 0:
		return "", nil, nil, errors.New(`not a record: no "v"`)
	case rec.V != RecordVersion:
		return "", nil, nil, fmt.Errorf("record version %d; this build reads %d", rec.V, RecordVersion)
	case rec.Response == nil:
		return "", nil, nil, errors.New(`record has no "response"`)
	case rec.Request == nil && rec.Key == "":
		return "", nil, nil, errors.New(`record has neither "request" nor "key"`)
	case rec.Redacted && rec.Request == nil:
		return "", nil, nil, errors.New(`redacted record has no "request"`)
	}
	if rec.Redacted {
		canon := string(canonicalRequest(rec.Request.request()))
		return "", rec.Response.response(), &redactedLine{pieces: strings.Split(canon, redact.Marker)}, nil
	}
	key := rec.Key
	if rec.Request != nil {
		key = RequestKey(rec.Request.request())
	}
	return key, rec.Response.response(), nil, nil
}

// Name is "replay:" + the name given to NewReplay.
func (rp *Replay) Name() string { return "replay:" + rp.name }

// Len is the number of answers loaded.
func (rp *Replay) Len() int { return rp.n }

// Skipped is the number of torn lines skipped while loading (0 or 1).
func (rp *Replay) Skipped() int { return rp.skipped }

// Chat returns the recorded answer to req, or an ErrReplayMiss error naming
// the key and the last user message.
func (rp *Replay) Chat(ctx context.Context, req *Request) (*Response, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if req == nil {
		return nil, &Error{Code: ErrBadRequest, Message: "nil request"}
	}
	key := RequestKey(req)
	rp.mu.Lock()
	list := rp.answers[key]
	var resp *Response
	if len(list) > 0 {
		i := rp.next[key]
		resp = replayCopy(list[i])
		if i+1 < len(list) {
			rp.next[key] = i + 1
		}
	} else if len(rp.redacted) > 0 {
		// A line recorded with its secrets redacted: the live request's
		// secret goes back where the answer has the marker.
		canon := string(canonicalRequest(req))
		for _, l := range rp.redacted {
			if caps, ok := l.matches(canon); ok {
				resp = replayCopy(l.resp)
				unredact(resp, caps)
				break
			}
		}
	}
	rp.mu.Unlock()
	if resp == nil {
		input, _ := lastUser(req.Messages)
		return nil, &Error{Code: ErrReplayMiss, Message: fmt.Sprintf("%s has no answer for request %s (last user message %q)",
			rp.name, key, clip(strings.TrimSpace(input), 80))}
	}
	if req.Stream != nil && resp.Text != "" {
		req.Stream(resp.Text)
	}
	return resp, nil
}

// replayCopy copies r deeply, so a caller editing its answer does not
// change what the next replay of the same key returns.
func replayCopy(r *Response) *Response {
	c := *r
	c.ToolCalls = nil
	for _, tc := range r.ToolCalls {
		tc.Args = append(json.RawMessage(nil), tc.Args...)
		c.ToolCalls = append(c.ToolCalls, tc)
	}
	return &c
}

// lastUser returns the content of the last user message.
func lastUser(msgs []Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser {
			return msgs[i].Content, true
		}
	}
	return "", false
}

// ctxErr turns a done context into the model error for it.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: ErrTimeout, Message: "deadline exceeded before the model was asked", Err: err}
	default:
		return &Error{Code: ErrCancelled, Message: "cancelled before the model was asked", Err: err}
	}
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
