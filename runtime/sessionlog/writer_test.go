package sessionlog

import (
	"bytes"
	"encoding/json"
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
