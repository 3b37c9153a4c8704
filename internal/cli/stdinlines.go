package cli

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
)

// stdinLines is a command's one reader of stdin: a goroutine reads lines
// and hands each to whichever phase is waiting (the end of a recording, a
// question, an approval), so no phase's abandoned read steals the answer
// meant for a later one. A line is read only when one is wanted, so the
// stdin a command leaves unread stays unread.
type stdinLines struct {
	want chan struct{} // a phase waits for a line
	ch   chan string   // closed at end of input
	stop chan struct{}
	once sync.Once

	mu   sync.Mutex
	back []string // lines handed back by a phase that stopped waiting
}

// newStdinLines reads r; a nil r never delivers a line.
func newStdinLines(r io.Reader) *stdinLines {
	l := &stdinLines{want: make(chan struct{}), ch: make(chan string), stop: make(chan struct{})}
	if r != nil {
		go l.read(r)
	}
	return l
}

func (l *stdinLines) read(r io.Reader) {
	defer close(l.ch)
	br := bufio.NewReader(r)
	for {
		select {
		case <-l.want:
		case <-l.stop:
			return
		}
		s, err := br.ReadString('\n')
		if s != "" || err == nil {
			select {
			case l.ch <- strings.TrimRight(s, "\r\n"):
			case <-l.stop:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// next waits for the next line: io.EOF at end of input, ctx's error when
// ctx ends first (the line, if one comes, is kept for the next caller).
func (l *stdinLines) next(ctx context.Context) (string, error) {
	l.mu.Lock()
	if len(l.back) > 0 {
		s := l.back[0]
		l.back = l.back[1:]
		l.mu.Unlock()
		return s, nil
	}
	l.mu.Unlock()
	// Ask for a line unless one is already asked for (a phase that gave up
	// waiting left its request standing: its line is the next one).
	select {
	case l.want <- struct{}{}:
	case s, ok := <-l.ch:
		return l.got(ctx, s, ok)
	case <-ctx.Done():
		return "", ctx.Err()
	}
	select {
	case s, ok := <-l.ch:
		return l.got(ctx, s, ok)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// got returns a received line, unless ctx ended meanwhile: then the line
// is handed back for the next phase.
func (l *stdinLines) got(ctx context.Context, s string, ok bool) (string, error) {
	if !ok {
		return "", io.EOF
	}
	if err := ctx.Err(); err != nil {
		l.mu.Lock()
		l.back = append([]string{s}, l.back...)
		l.mu.Unlock()
		return "", err
	}
	return s, nil
}

// close stops the reader goroutine once its current read returns.
func (l *stdinLines) close() { l.once.Do(func() { close(l.stop) }) }

// reader is the lines as an io.Reader, for an approver that reads lines
// itself; it ends (io.EOF) with ctx or the input.
func (l *stdinLines) reader(ctx context.Context) io.Reader { return &linesReader{l: l, ctx: ctx} }

type linesReader struct {
	l   *stdinLines
	ctx context.Context
	buf string
}

func (r *linesReader) Read(p []byte) (int, error) {
	if r.buf == "" {
		s, err := r.l.next(r.ctx)
		if err != nil {
			return 0, io.EOF
		}
		r.buf = s + "\n"
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}
