package batch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
)

func customerMacro() *runtime.Macro {
	return &runtime.Macro{Name: "add_customer", Params: json.RawMessage(`{"type":"object","required":["name","email"],"properties":{
		"name":{"type":"string","minLength":1},
		"email":{"type":"string","format":"email"},
		"tier":{"type":"string","enum":["free","pro","enterprise"],"default":"free"},
		"seats":{"type":"integer","minimum":1},
		"vip":{"type":"boolean"},
		"tags":{"type":"array","items":{"type":"string"}}}}`)}
}

// check runs NewReader, NewBuilder and Check over one input and returns
// the prepared rows and every problem as text.
func check(t *testing.T, file, input string, mp Mapping) ([]Prepared, []string) {
	t.Helper()
	f, err := FormatOf(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(file, f, strings.NewReader(input))
	if err != nil {
		var e *Error
		if ok := asError(err, &e); !ok {
			t.Fatal(err)
		}
		return nil, []string{e.Error()}
	}
	var cols []string
	if f == CSV {
		cols = r.Columns()
	}
	b, hp := NewBuilder(file, customerMacro(), cols, mp)
	var probs []string
	for _, p := range hp {
		probs = append(probs, p.String())
	}
	var rows []Prepared
	rep, err := Check(context.Background(), file, r, b, func(p Prepared) error { rows = append(rows, p); return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		probs = append(probs, p.String())
	}
	return rows, probs
}

func asError(err error, e **Error) bool {
	x, ok := err.(*Error)
	*e = x
	return ok
}

func TestRowsBecomeTypedArguments(t *testing.T) {
	input := "\ufeffname,email,tier,seats,vip,tags\n" +
		"Ada Lovelace,ada@example.com,pro,3,yes,\"[\"\"math\"\",\"\"poetry\"\"]\"\n" +
		"Grace Hopper,grace@navy.example,,,,\n"
	rows, probs := check(t, "rows.csv", input, Mapping{})
	if len(probs) != 0 || len(rows) != 2 {
		t.Fatalf("rows %+v, problems %v", rows, probs)
	}
	if got := string(rows[0].Args.JSON()); got != `{"email":"ada@example.com","name":"Ada Lovelace","seats":3,"tags":["math","poetry"],"tier":"pro","vip":true}` {
		t.Errorf("row 1 = %s", got)
	}
	if got := string(rows[1].Args.JSON()); got != `{"email":"grace@navy.example","name":"Grace Hopper","tier":"free"}` {
		t.Errorf("row 2 (empty cells omitted, default applied) = %s", got)
	}
	if rows[0].Line != 2 || rows[1].Line != 3 || !strings.HasPrefix(rows[0].Key, "sha256:") || rows[0].Key == rows[1].Key {
		t.Errorf("lines/keys = %+v", rows)
	}
}

func TestEveryProblemAtOnce(t *testing.T) {
	tests := []struct {
		name, file, input string
		mp                Mapping
		want              []string
	}{
		{"cells", "rows.csv", "name,email,tier,seats,vip\n" +
			"Ada,ada@example.com,pro,3,yes\n" +
			"Bob,not-an-email,gold,three,maybe\n" +
			",x@example.com,free,0,no\n",
			Mapping{}, []string{
				"rows.csv:3: email: ", // the schema's own words for the format
				`rows.csv:3: seats: "three" is not an integer`,
				"rows.csv:3: tier: ",
				`rows.csv:3: vip: "maybe" is not a boolean (true/false, yes/no, 1/0)`,
				"rows.csv:4: name: ",
				"rows.csv:4: seats: ",
			}},
		{"header", "rows.csv", "name,emial,tiers\nAda,ada@example.com,pro\n", Mapping{}, []string{
			`rows.csv:1: emial: no parameter of add_customer has this name (did you mean "email"?)`,
			`rows.csv:1: tiers: no parameter of add_customer has this name (did you mean "tier"?)`,
			"rows.csv:2: email: ",
		}},
		{"ragged and bad bytes", "rows.csv", "name,email\nAda,ada@example.com,extra\nBob,b\xffb@example.com\nCy,cy@example.com\n", Mapping{}, []string{
			"rows.csv:2: the row has 3 cells, the header 2",
			"rows.csv:3: email: the cell is not UTF-8 (save the file as UTF-8)",
		}},
		{"mapping", "rows.csv", "full name,mail\nAda,ada@example.com\n", Mapping{Columns: map[string]string{"full name": "name", "mail": "emial"}, Consts: map[string]string{"seats": "x"}}, []string{
			`rows.csv: seats: --arg: "x" is not an integer`,
			`rows.csv:1: mail: --map mail=emial: add_customer has no parameter "emial" (did you mean "email"?)`,
			"rows.csv:2: email: email is required",
		}},
		{"duplicate keys", "rows.csv", "id,name,email\n1,Ada,a@example.com\n1,Bob,b@example.com\n", Mapping{Key: "id"}, []string{
			`rows.csv:3: id: the row's key "1" is the key of line 2 too: a key names one row`,
		}},
		{"jsonl", "rows.jsonl", `{"name":"Ada","email":"ada@example.com","seats":2}` + "\n\n" + `[1,2]` + "\n" + `{"name":"Bob","email":"bob@example.com","seats":"2"}` + "\n", Mapping{}, []string{
			"rows.jsonl:3: each line is one JSON object of arguments",
			"rows.jsonl:4: seats: ",
		}},
		{"utf-16", "rows.csv", "\xff\xfen\x00a\x00", Mapping{}, []string{"rows.csv:1: the file is UTF-16; save it as UTF-8"}},
		{"empty", "rows.csv", "", Mapping{}, []string{"rows.csv:1: empty file"}},
		{"duplicate column", "rows.csv", "name,name\n", Mapping{}, []string{"rows.csv:1: name: the column is named twice"}},
		{"an endless cell", "rows.csv", "name,email\n\"" + strings.Repeat("a", MaxRowBytes+10), Mapping{}, []string{"rows.csv:2: a row is longer than 1024 KiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, probs := check(t, tt.file, tt.input, tt.mp)
			if len(probs) != len(tt.want) {
				t.Fatalf("problems:\n%s\nwant %d:\n%s", strings.Join(probs, "\n"), len(tt.want), strings.Join(tt.want, "\n"))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(probs[i], w) {
					t.Errorf("problem %d = %q, want prefix %q", i, probs[i], w)
				}
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]Format{"a.csv": CSV, "B.CSV": CSV, "x.jsonl": JSONL, "x.ndjson": JSONL, "x.txt": ""} {
		got, err := FormatOf(name)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("FormatOf(%q) = %q, %v", name, got, err)
		}
	}
}

// FuzzCheck: any input is read without a panic, every problem is
// positioned, and a row either runs or has a problem.
func FuzzCheck(f *testing.F) {
	f.Add("name,email\nAda,ada@example.com\n", true)
	f.Add("\ufeffname,email,seats\n\"A,da\",a@b.c,2\nB,\"x\n", true)
	f.Add(`{"name":"Ada","email":"a@b.c"}`+"\n{", false)
	f.Fuzz(func(t *testing.T, input string, isCSV bool) {
		file, format := "rows.csv", CSV
		if !isCSV {
			file, format = "rows.jsonl", JSONL
		}
		r, err := NewReader(file, format, strings.NewReader(input))
		if err != nil {
			return
		}
		var cols []string
		if isCSV {
			cols = r.Columns()
		}
		b, _ := NewBuilder(file, customerMacro(), cols, Mapping{})
		ran := 0
		rep, err := Check(context.Background(), file, r, b, func(Prepared) error { ran++; return nil })
		if err != nil {
			t.Fatalf("Check on in-memory input: %v", err)
		}
		for _, p := range rep.Problems {
			if p.File != file || p.Line < 1 {
				t.Fatalf("unpositioned problem %+v", p)
			}
		}
		if rep.OK() && ran > rep.Rows {
			t.Fatalf("%d rows ran of %d read", ran, rep.Rows)
		}
	})
}
