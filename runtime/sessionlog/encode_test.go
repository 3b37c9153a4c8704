package sessionlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// strictLines checks every line of a log file is valid UTF-8, valid JSON
// and at most MaxLineBytes long, and returns the lines.
func strictLines(t *testing.T, path string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		t.Errorf("%s does not end with a newline", path)
	}
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	for i, l := range lines {
		if !utf8.Valid(l) {
			t.Errorf("line %d is not valid UTF-8: %q", i+1, l[:min(len(l), 200)])
		}
		if !json.Valid(l) {
			t.Errorf("line %d is not JSON: %q", i+1, l[:min(len(l), 200)])
		}
		if len(l)+1 > MaxLineBytes {
			t.Errorf("line %d is %d bytes, over %d", i+1, len(l)+1, MaxLineBytes)
		}
	}
	return lines
}

func TestAppendWritesValidUTF8(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	l.AddSecret("pw\xfe1") // a secret with an invalid byte still matches
	recs := []Record{
		{Type: RecUser, Text: "add \xffAda\xc3"},
		{Type: RecToolCall, CallID: "c\x80", Tool: "add_customer", Args: json.RawMessage("{\"name\":\"A\xff\xfeda\",\"password\":\"pw\xfe1\"}")},
		{Type: RecToolResult, CallID: "c1", Tool: "add_customer", OK: true, Result: json.RawMessage("[\"\xe2\x82\"]"),
			Data: map[string]any{"k\xff": "v\xff"}, Error: &ErrorInfo{Code: "x", Message: "m\xff", Details: []any{"d\xff"}}},
	}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	_ = l.Close()
	lines := strictLines(t, filepath.Join(dir, "s.jsonl"))
	all := string(bytes.Join(lines, nil))
	if strings.Contains(all, "pw") {
		t.Errorf("the secret with an invalid byte reached the log: %s", all)
	}
	if !strings.Contains(all, `A\ufffd\ufffdda`) {
		t.Errorf("invalid bytes not replaced one by one: %s", all)
	}
}

func TestAppendBoundsLines(t *testing.T) {
	big := strings.Repeat("x", 900<<10)
	const secret = "hunter2-XYZ"
	// The secret straddles the first cut: redaction must happen before it.
	straddle := strings.Repeat("a", stringCaps[0]-4) + secret + strings.Repeat("b", 400<<10)
	nums := make([]int, 200_000)
	cases := []struct {
		name string
		rec  Record
		cut  string // a string that must appear cut, with its length and hash
	}{
		{name: "900 KB argument", rec: Record{Type: RecToolCall, Tool: "t", Args: mustJSON(map[string]any{"notes": big, "n": 12345678901234567})}, cut: big},
		{name: "escaped argument", rec: Record{Type: RecToolCall, Tool: "t", Args: mustJSON(map[string]any{"notes": strings.Repeat("<\"", 300<<10)})}},
		{name: "long text", rec: Record{Type: RecUser, Text: big}, cut: big},
		{name: "long result and data", rec: Record{Type: RecToolResult, OK: true, Result: mustJSON([]string{big}), Data: map[string]any{"html": big}}, cut: big},
		{name: "long error", rec: Record{Type: RecToolResult, Error: &ErrorInfo{Code: "step_failed", Message: big, Details: map[string]any{"detail": big}}}, cut: big},
		{name: "huge array", rec: Record{Type: RecToolCall, Tool: "t", Args: mustJSON(map[string]any{"ids": nums})}},
		{name: "long tool name", rec: Record{Type: RecToolCall, Tool: big}, cut: big},
		{name: "many checks", rec: Record{Type: RecToolResult, Verification: &VerificationSummary{Passed: 1, Checks: []any{big, big, big}}}},
		{name: "secret at the cut", rec: Record{Type: RecToolCall, Tool: "login", Args: mustJSON(map[string]any{"notes": straddle, "password": secret})}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := Open(dir, "s")
			if err != nil {
				t.Fatal(err)
			}
			l.AddSecret(secret)
			if err := l.Append(tc.rec); err != nil {
				t.Fatal(err)
			}
			_ = l.Close()
			lines := strictLines(t, filepath.Join(dir, "s.jsonl"))
			if len(lines) != 1 {
				t.Fatalf("%d lines", len(lines))
			}
			var got Record
			if err := json.Unmarshal(lines[0], &got); err != nil || got.Type != tc.rec.Type {
				t.Fatalf("record %v: %+v", err, got.Type)
			}
			if bytes.Contains(lines[0], []byte("hunter")) {
				t.Errorf("part of the secret reached the log")
			}
			if tc.cut != "" {
				sum := sha256.Sum256([]byte(tc.cut))
				want := TruncatedMarker + strconv.Itoa(len(tc.cut)) + " bytes, sha256:" + hex.EncodeToString(sum[:]) + "]"
				if !bytes.Contains(lines[0], []byte(want)) {
					t.Errorf("no marker %q in %.300s", want, lines[0])
				}
			}
			if tc.name == "900 KB argument" && !bytes.Contains(lines[0], []byte(`"n":12345678901234567`)) {
				t.Errorf("a number lost precision: %.300s", lines[0])
			}
		})
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
