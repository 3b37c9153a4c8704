package sessionlog

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadToleratesTornAndForeignLines(t *testing.T) {
	in := strings.Join([]string{
		`{"v":1,"type":"user","session":"s","turn":1,"text":"hi"}`,
		`{"hello":"world"}`,
		``,
		`{"v":1,"type":"assistant","session":"s","turn":1,"text":"hey"}`,
		`{"v":1,"type":"tool_call","sess`,
	}, "\n")
	var n int
	st, err := Read(strings.NewReader(in), func(Record) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{Lines: 4, Records: 2, Torn: 1, Foreign: 1}
	if st != want || n != 2 {
		t.Fatalf("stats = %+v (n=%d), want %+v", st, n, want)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"user","session":"s","turn":1,"text":"hi"}` + "\n{\"v\":1"))
	f.Add([]byte("\n\n{}\n[1,2]\n\"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Read(bytes.NewReader(data), func(Record) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if st.Records+st.Torn+st.Foreign+st.Oversized != st.Lines {
			t.Fatalf("stats do not add up: %+v", st)
		}
	})
}
