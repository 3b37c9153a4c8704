package cli

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// TestStdinLines: a phase that stops waiting takes no line, so the next
// phase gets it; a line that arrives as a phase gives up is handed back;
// end of input is io.EOF.
func TestStdinLines(t *testing.T) {
	r, w := io.Pipe()
	l := newStdinLines(r)
	defer l.close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	// The recording's wait, ended another way before any line.
	gone, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := l.next(gone); done <- err }()
	time.Sleep(20 * time.Millisecond)
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("abandoned wait: %v", err)
	}
	go func() { _, _ = io.WriteString(w, "y\r\n") }()
	if s, err := l.next(ctx); s != "y" || err != nil {
		t.Fatalf("next = %q, %v; want the line the abandoned wait did not take", s, err)
	}

	// Received just as its phase ended: handed back.
	if _, err := l.got(gone, "n", true); !errors.Is(err, context.Canceled) {
		t.Fatalf("got after the end: %v", err)
	}
	if s, err := l.next(ctx); s != "n" || err != nil {
		t.Fatalf("next = %q, %v; want the handed-back line", s, err)
	}

	go func() { _, _ = io.WriteString(w, "last"); _ = w.Close() }()
	if s, err := l.next(ctx); s != "last" || err != nil {
		t.Fatalf("next = %q, %v; want the last line without its newline", s, err)
	}
	if _, err := l.next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("at end of input: %v", err)
	}
}
