package engine

import (
	"context"
	"time"
)

// Field says what to read from an element: its text (the default), its
// form value, or an attribute.
type Field struct {
	Text  bool   `json:"text,omitempty"`
	Value bool   `json:"value,omitempty"`
	Attr  string `json:"attr,omitempty"`
	// In narrows a row column to the single match of this target inside
	// the row (ExtractRows only).
	In *Target `json:"in,omitempty"`
}

// Extracted is one extracted value with the element it came from.
type Extracted struct {
	Value    string        `json:"value"`
	Found    bool          `json:"found"` // false when the attribute is absent
	Element  Candidate     `json:"element"`
	Duration time.Duration `json:"duration"`
}

type extractOut struct {
	OK         bool        `json:"ok"`
	Code       Code        `json:"code"`
	Msg        string      `json:"msg"`
	Candidates []Candidate `json:"candidates"`
	Value      *string     `json:"value"`
	Found      bool        `json:"found"`
	El         Candidate   `json:"el"`
}

// Extract reads one field of the element t resolves to. A missing attribute
// is an error (not an empty string), so a macro never reports a value the
// page did not show.
func (p *Page) Extract(ctx context.Context, t Target, f Field) (*Extracted, error) {
	start := time.Now()
	var out extractOut
	if err := p.call(ctx, &out, mkExtract, t, f); err != nil {
		return nil, err
	}
	if !out.OK {
		return nil, &Error{Code: out.Code, Msg: out.Msg, Target: &t, Candidates: out.Candidates}
	}
	if !out.Found || out.Value == nil {
		return nil, &Error{Code: CodeNotFound, Msg: "attribute " + f.Attr + " is not set", Target: &t}
	}
	return &Extracted{Value: *out.Value, Found: true, Element: out.El, Duration: time.Since(start)}, nil
}

// Rows is the result of ExtractRows.
type Rows struct {
	Rows []map[string]*string `json:"rows"` // nil: the column's element or attribute was absent
	// Total is how many rows matched before max was applied.
	Total    int           `json:"total"`
	Duration time.Duration `json:"duration"`
}

// ExtractRows reads cols from every element matching t (nth/last ignored),
// in document order, at most max rows (0: no limit).
func (p *Page) ExtractRows(ctx context.Context, t Target, cols map[string]Field, max int) (*Rows, error) {
	start := time.Now()
	var out struct {
		OK    bool                 `json:"ok"`
		Code  Code                 `json:"code"`
		Msg   string               `json:"msg"`
		Rows  []map[string]*string `json:"rows"`
		Total int                  `json:"total"`
	}
	if err := p.call(ctx, &out, mkExtractRows, t, cols, max); err != nil {
		return nil, err
	}
	if !out.OK {
		return nil, &Error{Code: out.Code, Msg: out.Msg, Target: &t}
	}
	if out.Rows == nil {
		out.Rows = []map[string]*string{}
	}
	return &Rows{Rows: out.Rows, Total: out.Total, Duration: time.Since(start)}, nil
}
