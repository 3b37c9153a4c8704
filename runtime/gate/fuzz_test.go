package gate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzScanLine checks the line scanner against encoding/json: the same
// lines are valid, and a valid object is seen as one.
//
//	go test ./runtime/gate -run '^$' -fuzz FuzzScanLine -fuzztime 30s
func FuzzScanLine(f *testing.F) {
	for _, s := range []string{`{"v":1,"type":"user","session":"s","turn":1,"text":"hi"}`, `[1,{"a":"\u00e9"}]`, `{"a":`, `"x\"y"`, `-0.5e+3`, ` {} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var lf lineFields
		got := scanLine(b, &lf)
		if want := json.Valid(b); got != want {
			t.Fatalf("scanLine = %v, json.Valid = %v for %q", got, want, b)
		}
		if got {
			var m map[string]json.RawMessage
			isObj := json.Unmarshal(b, &m) == nil
			if lf.object != isObj {
				t.Fatalf("object = %v, encoding/json says %v for %q", lf.object, isObj, b)
			}
		}
	})
}

// FuzzRead feeds arbitrary bytes to the log reader: it never fails or
// panics on content, accounts for every non-blank line, and every
// suggested spec it builds is YAML.
//
//	go test ./runtime/gate -run '^$' -fuzz FuzzRead -fuzztime 30s
func FuzzRead(f *testing.F) {
	a, b := addCustomerLogs()
	f.Add([]byte(a))
	f.Add([]byte(b))
	f.Add([]byte(a[:len(a)/2] + "\n" + b[len(b)/3:]))
	f.Add([]byte(`{"v":1,"type":"tool_call","session":"s","turn":1,"call_id":"c","tool":"http_request","raw":true,"args":{"method":"POST","url":"http://x/a/1","body":{"q":[1,"a",null,{"b":true}]}}}`))
	f.Add([]byte("{\"v\":1,\"type\":\"user\"}\r\n\n{\"hello\":1}\n{\"v\":1,"))
	f.Add([]byte(strings.ReplaceAll(a, "Ada", "A\xffa"))) // invalid UTF-8 in values
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewScanner(Options{Threshold: 1, MaxLineBytes: 4096, Env: demoEnv})
		if err := s.Read("fuzz.jsonl", bytes.NewReader(data)); err != nil {
			t.Fatalf("read error on in-memory input: %v", err)
		}
		r := s.Report()
		st := r.Stats
		if st.Lines != st.Records+st.Torn+st.Foreign+st.Oversized {
			t.Fatalf("lines do not add up: %+v", st)
		}
		if st.Bytes != int64(len(data)) {
			t.Fatalf("bytes = %d, read %d", st.Bytes, len(data))
		}
		for _, g := range r.Groups {
			if g.YAML == "" {
				continue
			}
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(g.YAML), &doc); err != nil {
				t.Fatalf("suggested spec is not YAML: %v\n%s", err, g.YAML)
			}
			if !strings.HasPrefix(g.YAML, "# yaml-language-server:") {
				t.Fatalf("no header:\n%s", g.YAML)
			}
		}
	})
}
