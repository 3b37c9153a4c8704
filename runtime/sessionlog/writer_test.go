package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriterRoundTripAndRedaction(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	l.AddSecret(`hunter"2`)
	l.AddSecret(`hunter"2`) // registered again: kept once
	// A secret that is a prefix of another one, registered first: the
	// longer one must not leave its tail behind.
	l.AddSecret("tok-")
	l.AddSecret("tok-zebra-91")
	if len(l.secrets) != 3 {
		t.Errorf("secrets %q: a repeated registration was kept twice", l.secrets)
	}
	recs := []Record{
		{Type: RecUser, Turn: 1, Text: "log in as ada with hunter\"2 and token tok-zebra-91"},
		{Type: RecToolCall, Turn: 1, CallID: "c1", Tool: "login", Args: json.RawMessage(`{"user":"ada","password":"hunter\"2"}`)},
		{Type: RecToolResult, Turn: 1, CallID: "c1", Tool: "login", OK: true, Verification: &VerificationSummary{Passed: 2}},
		{Type: RecAssistant, Turn: 1, Text: "Logged in."},
	}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("hunter")) || bytes.Contains(raw, []byte("zebra")) {
		t.Fatalf("secret reached the log:\n%s", raw)
	}
	var got []Record
	st, err := Read(bytes.NewReader(raw), func(r Record) error { got = append(got, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 4 || st.Torn != 0 || len(got) != 4 {
		t.Fatalf("stats %+v, %d records", st, len(got))
	}
	if got[1].Tool != "login" || got[1].Session != "s1" || got[1].V != Version {
		t.Errorf("record 1 = %+v", got[1])
	}
	if !strings.Contains(string(got[1].Args), "[redacted]") {
		t.Errorf("args not redacted: %s", got[1].Args)
	}
}

func TestOpenRejectsPathIDs(t *testing.T) {
	for _, id := range []string{"", "../x", "a/b", ".hidden"} {
		if _, err := Open(t.TempDir(), id); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

func TestWriterRotates(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	l.SetMaxFileBytes(4096)
	if err := l.Append(Record{Type: RecSystem, Event: "serve", Data: map[string]any{"binary": "acme"}}); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := l.Append(Record{Type: RecToolCall, Turn: i, CallID: "c", Tool: "find_customer", Args: json.RawMessage(`{"query":"ada lovelace"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	last := l.ID()
	_ = l.Close()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) < 3 {
		t.Fatalf("%d file(s): no rotation", len(paths))
	}
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, s := range list {
		calls += s.Calls
		st, _ := os.Stat(s.Path)
		if st.Size() > 4096 {
			t.Errorf("%s is %d bytes, over the limit", s.Path, st.Size())
		}
		if s.Command != "serve" || s.Binary != "acme" {
			t.Errorf("%s: command %q binary %q: the header was not carried over", s.ID, s.Command, s.Binary)
		}
		strictLines(t, s.Path)
	}
	if calls != 100 {
		t.Errorf("%d calls over the parts, want 100", calls)
	}
	s1, err := ReadFile(filepath.Join(dir, "s.1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	h := s1.Records[0]
	if s1.Summary.ID != "s.1" || h.Event != "serve" || h.Data["continued_from"] != "s" || h.Data["part"] != float64(1) {
		t.Errorf("part 1: id %q, first record %+v", s1.Summary.ID, h)
	}
	if p, _ := Find(dir, "last"); p != filepath.Join(dir, last+".jsonl") {
		t.Errorf("last = %s, want the current part %s", p, last)
	}
}

func TestWriterFailedWrite(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, "s.jsonl")); err != nil {
		t.Fatal(err)
	}
	l, err := Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(Record{Type: RecUser, Text: "hi"}); err == nil {
		t.Fatal("a write to a full disk succeeded")
	}
	_ = l.Close()
	if err := l.Append(Record{Type: RecUser, Text: "hi"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
}
