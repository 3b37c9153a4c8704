package engine

import (
	"testing"
	"time"
)

func TestExtract(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("extract_rows.html")); err != nil {
		t.Fatal(err)
	}
	one := 1
	cases := []struct {
		name   string
		target Target
		field  Field
		want   string
		code   Code
	}{
		{"text normalised", Target{TestID: "summary"}, Field{Text: true}, "Showing 3 of 3 orders", ""},
		{"attribute of last row", Target{TestID: "order-row", Last: true}, Field{Attr: "data-id"}, "o3", ""},
		{"attribute of nth row", Target{TestID: "order-row", Nth: &one}, Field{Attr: "data-id"}, "o2", ""},
		{"input value", Target{Label: "Note"}, Field{Value: true}, "rush", ""},
		{"select value is the option text", Target{Label: "Carrier"}, Field{Value: true}, "UPS", ""},
		{"missing attribute is an error", Target{TestID: "summary"}, Field{Attr: "data-nope"}, "", CodeNotFound},
		{"ambiguous target", Target{TestID: "order-row"}, Field{Attr: "data-id"}, "", CodeAmbiguous},
		{"no such element", Target{TestID: "nope"}, Field{Text: true}, "", CodeNotFound},
	}
	for _, tc := range cases {
		got, err := p.Extract(ctx, tc.target, tc.field)
		if tc.code != "" {
			if !IsCode(err, tc.code) {
				t.Errorf("%s: err = %v, want code %s", tc.name, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.Value != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got.Value, tc.want)
		}
	}
}

func TestExtractRows(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 30*time.Second)
	if err := p.Goto(ctx, fixtureURL("extract_rows.html")); err != nil {
		t.Fatal(err)
	}
	cols := map[string]Field{
		"id":     {Attr: "data-id"},
		"status": {Text: true, In: &Target{TestID: "status"}},
		"flag":   {Attr: "data-flag"},
	}
	rows, err := p.ExtractRows(ctx, Target{TestID: "order-row"}, cols, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rows.Total != 3 || len(rows.Rows) != 2 {
		t.Fatalf("total %d, rows %d; want 3 and 2 (max)", rows.Total, len(rows.Rows))
	}
	want := []map[string]string{{"id": "o1", "status": "pending"}, {"id": "o2", "status": "paid"}}
	for i, w := range want {
		for k, v := range w {
			if got := rows.Rows[i][k]; got == nil || *got != v {
				t.Errorf("row %d %s = %v, want %q", i, k, got, v)
			}
		}
		if rows.Rows[i]["flag"] != nil {
			t.Errorf("row %d: absent attribute should be null, got %q", i, *rows.Rows[i]["flag"])
		}
	}
	all, err := p.ExtractRows(ctx, Target{TestID: "order-row"}, map[string]Field{"status": {In: &Target{TestID: "status"}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := all.Rows[2]["status"]; got == nil || *got != "shipped" {
		t.Errorf("third status = %v, want shipped (whitespace normalised)", got)
	}
	none, err := p.ExtractRows(ctx, Target{TestID: "nothing"}, cols, 0)
	if err != nil || len(none.Rows) != 0 || none.Total != 0 {
		t.Errorf("no rows: %+v, %v", none, err)
	}
}
