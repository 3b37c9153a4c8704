package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/batch"
)

func progressRows() []batchRow {
	return []batchRow{
		{Line: 2, Key: "ada", Status: batch.StatusOK},
		{Line: 3, Key: "bob", Status: batch.StatusFailed, Error: &batch.EntryError{Code: "step_failed", Message: "check failed"}},
	}
}

func TestBatchProgressPlainLines(t *testing.T) {
	var buf bytes.Buffer
	p := newBatchProgress(&buf, 2)
	for _, r := range progressRows() {
		p.row(r)
	}
	p.finish()
	want := "[1/2] line 2 ada: ok\n[2/2] line 3 bob: failed (step_failed: check failed)\n"
	if buf.String() != want {
		t.Fatalf("not a terminal: got %q, want %q", buf.String(), want)
	}
}

func TestBatchProgressBarOnTerminal(t *testing.T) {
	tty, keyboard := openTerminal(t)
	var mu sync.Mutex
	var out bytes.Buffer
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := keyboard.Read(b)
			mu.Lock()
			out.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	p := newBatchProgress(tty, 2)
	if p.bar == nil {
		t.Fatal("a terminal gets the progress bar")
	}
	for _, r := range progressRows() {
		p.row(r)
	}
	p.finish()
	// The bar shows the count, the rate and the failure under it; no
	// plain per-row line.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		s := out.String()
		mu.Unlock()
		if strings.Contains(s, "2/2") && strings.Contains(s, "rows (1 not ok)") && strings.Contains(s, "line 3 bob: failed") {
			if strings.Contains(s, "[1/2] line 2") {
				t.Fatalf("a terminal got plain lines too: %q", s)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal shows no bar with the count, the failures and the failed row: %q", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
