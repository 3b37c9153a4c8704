package refdata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/internal/refdatatest"
)

func TestTypeCell(t *testing.T) {
	cases := []struct {
		types   []string
		cell    string
		want    string // canonical JSON of the value; "absent" when not present
		wantErr string
	}{
		{nil, "anything", `"anything"`, ""},
		{nil, "", `""`, ""},
		{[]string{"string"}, "", `""`, ""},
		{[]string{"string"}, "42", `"42"`, ""},
		{[]string{"integer"}, "42", `42`, ""},
		{[]string{"integer"}, "-7", `-7`, ""},
		{[]string{"integer"}, "+7", `7`, ""},
		{[]string{"integer"}, "4.2", ``, "not integer"},
		{[]string{"integer"}, "", `absent`, ""},
		{[]string{"integer", "null"}, "", `null`, ""},
		{[]string{"number"}, "4.25", `4.25`, ""},
		{[]string{"number"}, "1e3", `1000`, ""},
		{[]string{"number"}, "0x10", ``, "not number"},
		{[]string{"number"}, "Inf", ``, "not number"},
		{[]string{"number"}, "1e999", ``, "not number"},
		{[]string{"boolean"}, "TRUE", `true`, ""},
		{[]string{"boolean"}, "false", `false`, ""},
		{[]string{"boolean"}, "1", ``, "not boolean"},
		{[]string{"array"}, `["a",1]`, `["a",1]`, ""},
		{[]string{"array"}, `{"a":1}`, ``, "not array"},
		{[]string{"object"}, `{"b":1,"a":2}`, `{"a":2,"b":1}`, ""},
		{[]string{"integer", "string"}, "12", `12`, ""},
		{[]string{"integer", "string"}, "twelve", `"twelve"`, ""},
		{[]string{"boolean", "string"}, "true", `true`, ""},
		{[]string{"null"}, "x", ``, "not null"},
	}
	for _, tc := range cases {
		v, present, err := refdata.TypeCell(tc.types, tc.cell)
		name := strings.Join(tc.types, "|") + " " + tc.cell
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := "absent"
		if present {
			b, err := refdata.AppendCanonical(nil, v)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			got = string(b)
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", name, got, tc.want)
		}
	}
}

func parseTestRows(format, key, schema, body string) ([]refdata.Row, error) {
	f := &refdata.FileEntry{Path: "f." + format, Format: refdata.Format(format), Key: key, Schema: json.RawMessage(schema)}
	rs, err := refdata.CompileSchema(f)
	if err != nil {
		return nil, err
	}
	return refdata.ParseRows(context.Background(), f, []byte(body), rs)
}

func TestParseRows(t *testing.T) {
	cases := []struct {
		name, format, key, schema, body string
		rows                            []string // canonical rows
		keys                            []string
		row                             int
		column, err                     string
	}{
		{name: "csv typed", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: refdatatest.TiersCSV,
			rows: []string{`{"annual":false,"monthly_price":0,"seats":1,"tier":"free"}`, `{"annual":true,"monthly_price":29.5,"seats":5,"tier":"pro"}`, `{"annual":true,"monthly_price":499,"seats":100,"tier":"enterprise"}`},
			keys: []string{"free", "pro", "enterprise"}},
		{name: "csv BOM and CRLF, empty optional", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "\ufefftier,monthly_price,seats,annual\r\npro,1,2,\r\n",
			rows: []string{`{"monthly_price":1,"seats":2,"tier":"pro"}`}, keys: []string{"pro"}},
		{name: "csv header only", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "tier,monthly_price,seats\n"},
		{name: "csv empty", format: "csv", schema: refdatatest.TiersSchema, body: "", err: "no header"},
		{name: "csv bad integer", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "tier,monthly_price,seats\nfree,0,1\npro,9,many\n", row: 2, column: "seats", err: "not integer"},
		{name: "csv schema minimum", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "tier,monthly_price,seats\nfree,-1,1\n", row: 1, column: "monthly_price", err: "greater than or equal to 0"},
		{name: "csv enum", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "tier,monthly_price,seats\nfree,0,1\ngold,0,1\n", row: 2, column: "tier", err: "must be one of"},
		{name: "csv missing required", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "tier,monthly_price,seats\nfree,,1\n", row: 1, column: "monthly_price", err: "required"},
		{name: "csv unknown column", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "tier,monthly_price,seats,color\nfree,0,1,red\n", row: 1, column: "color", err: "not allowed"},
		{name: "csv ragged row", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "tier,monthly_price,seats\nfree,0\n", row: 1, err: "wrong number of fields"},
		{name: "csv duplicate header", format: "csv", schema: refdatatest.TiersSchema, body: "tier,tier\n", column: "tier", err: "named twice"},
		{name: "csv duplicate key", format: "csv", key: "tier", schema: refdatatest.TiersSchema, body: "tier,monthly_price,seats\npro,0,1\npro,2,3\n", row: 2, column: "tier", err: "repeats row 1"},
		{name: "csv bad quote", format: "csv", schema: `{}`, body: "a,b\n\"x,y\n", row: 1, err: "quote"},
		{name: "json rows", format: "json", key: "id", schema: `{"type":"object","required":["id"]}`, body: `[{"id": 7, "v": [1, 2]}, {"id": "x", "v": null}]`,
			rows: []string{`{"id":7,"v":[1,2]}`, `{"id":"x","v":null}`}, keys: []string{"7", "x"}},
		{name: "json integral float key", format: "json", key: "id", schema: `{}`, body: `[{"id": 7.0}]`, rows: []string{`{"id":7}`}, keys: []string{"7"}},
		{name: "json not array", format: "json", schema: `{}`, body: `{"id": 1}`, err: "want a JSON array"},
		{name: "json row not object", format: "json", schema: `{}`, body: `[{}, 3]`, row: 2, err: "want an object"},
		{name: "json key missing", format: "json", key: "id", schema: `{}`, body: `[{"x": 1}]`, row: 1, column: "id", err: "missing"},
		{name: "json key fractional", format: "json", key: "id", schema: `{}`, body: `[{"id": 1.5}]`, row: 1, column: "id", err: "string or an integer"},
		{name: "json key bool", format: "json", key: "id", schema: `{}`, body: `[{"id": true}]`, row: 1, column: "id", err: "boolean"},
		{name: "json duplicate member", format: "json", schema: `{}`, body: `[{"a": 1, "a": 2}]`, err: "duplicate key"},
		{name: "json nested error column", format: "json", schema: `{"properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}}}}}`, body: `[{"a": {"b": "x"}}]`, row: 1, column: "a", err: "a.b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := parseTestRows(tc.format, tc.key, tc.schema, tc.body)
			if tc.err != "" {
				refdatatest.WantCode(t, err, refdata.CodeSchemaInvalid)
				e := err.(*refdata.Error)
				if e.Row != tc.row || e.Column != tc.column || !strings.Contains(e.Msg, tc.err) {
					t.Fatalf("got row %d column %q msg %q; want row %d column %q msg ~%q", e.Row, e.Column, e.Msg, tc.row, tc.column, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(tc.rows) {
				t.Fatalf("%d rows, want %d", len(rows), len(tc.rows))
			}
			for i, r := range rows {
				if string(r.Data) != tc.rows[i] {
					t.Errorf("row %d: %s, want %s", i+1, r.Data, tc.rows[i])
				}
				if tc.keys != nil && r.Key != tc.keys[i] {
					t.Errorf("row %d key %q, want %q", i+1, r.Key, tc.keys[i])
				}
			}
		})
	}
}

func FuzzCSVRows(f *testing.F) {
	f.Add(refdatatest.TiersCSV)
	f.Add("tier,monthly_price,seats\nfree,0,1\npro,x,2\n")
	f.Add("\ufefftier,seats\n\"a\"\"b\",3\n")
	f.Add("annual,tier\nTRUE,free\n")
	f.Fuzz(func(t *testing.T, body string) {
		rows, err := parseTestRows("csv", "tier", refdatatest.TiersSchema, body)
		if err != nil {
			if refdata.CodeOf(err) != refdata.CodeSchemaInvalid {
				t.Fatalf("error without schema_invalid: %v", err)
			}
			return
		}
		// Every accepted row fits the schema's types and round-trips.
		for _, r := range rows {
			var m map[string]any
			dec := json.NewDecoder(strings.NewReader(string(r.Data)))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("row %s: %v", r.Data, err)
			}
			if _, ok := m["tier"].(string); !ok || m["tier"] != r.Key {
				t.Fatalf("tier %v, key %q", m["tier"], r.Key)
			}
			if n, ok := m["seats"].(json.Number); !ok || strings.ContainsAny(string(n), ".eE") {
				t.Fatalf("seats %v is not an integer", m["seats"])
			}
			if _, ok := m["monthly_price"].(json.Number); !ok {
				t.Fatalf("monthly_price %v is not a number", m["monthly_price"])
			}
			if a, ok := m["annual"]; ok {
				if _, ok := a.(bool); !ok {
					t.Fatalf("annual %v is not a boolean", a)
				}
			}
		}
	})
}

func FuzzTypeCell(f *testing.F) {
	for _, s := range []string{"", "1", "-0", "1.5e3", "true", `{"a":1}`, "[1]", "x"} {
		f.Add(s, "integer")
		f.Add(s, "number")
		f.Add(s, "boolean,string")
	}
	f.Fuzz(func(t *testing.T, cell, types string) {
		v, present, err := refdata.TypeCell(strings.Split(types, ","), cell)
		if err != nil || !present {
			return
		}
		if _, err := refdata.AppendCanonical(nil, v); err != nil {
			t.Fatalf("typed %q as %v, which does not encode: %v", cell, v, err)
		}
	})
}

// TestParseRowsAcrossBatches checks that the error of the lowest bad row is
// reported when rows are checked in parallel batches.
func TestParseRowsAcrossBatches(t *testing.T) {
	const n = 3*refdata.BatchRows + 100
	// setRow replaces data row r (1-based) of the big CSV.
	setRow := func(lines []string, r int, line string) { lines[r] = line }
	cases := []struct {
		name   string
		edit   func(lines []string)
		row    int
		column string
		msg    string
	}{
		{name: "clean"},
		{name: "schema error in a late batch", edit: func(l []string) { setRow(l, 3*refdata.BatchRows+7, "kx,n,-1,t") }, row: 3*refdata.BatchRows + 7, column: "score", msg: "greater than or equal to 0"},
		{name: "key repeats an earlier batch", edit: func(l []string) { setRow(l, 2*refdata.BatchRows+1, "k000009,n,1,t") }, row: 2*refdata.BatchRows + 1, column: "id", msg: "repeats row 10"},
		{name: "schema error before a typing error", edit: func(l []string) {
			setRow(l, refdata.BatchRows+5, "ka,n,-1,t")
			setRow(l, refdata.BatchRows+9, "kb,n,x,t")
		}, row: refdata.BatchRows + 5, column: "score", msg: "greater than"},
		{name: "typing error before a schema error", edit: func(l []string) {
			setRow(l, refdata.BatchRows+5, "ka,n,x,t")
			setRow(l, refdata.BatchRows+9, "kb,n,-1,t")
		}, row: refdata.BatchRows + 5, column: "score", msg: "not number"},
		{name: "typing error after a full batch", edit: func(l []string) { setRow(l, refdata.BatchRows+1, "ka,n,x,t") }, row: refdata.BatchRows + 1, column: "score", msg: "not number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(refdatatest.BigCSV(n, "t"), "\n")
			if tc.edit != nil {
				tc.edit(lines)
			}
			rows, err := parseTestRows("csv", "id", refdatatest.BigSchema, strings.Join(lines, "\n"))
			if tc.msg == "" {
				if err != nil || len(rows) != n || rows[n-1].Key != fmt.Sprintf("k%06d", n-1) {
					t.Fatalf("%d rows, %v", len(rows), err)
				}
				return
			}
			refdatatest.WantCode(t, err, refdata.CodeSchemaInvalid)
			e := err.(*refdata.Error)
			if e.Row != tc.row || e.Column != tc.column || !strings.Contains(e.Msg, tc.msg) {
				t.Fatalf("row %d column %q %q; want row %d column %q ~%q", e.Row, e.Column, e.Msg, tc.row, tc.column, tc.msg)
			}
		})
	}
}
