package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxRowBytes bounds one row (a CSV record or a JSONL line).
const MaxRowBytes = 1 << 20

// Format is an input's format.
type Format string

// The formats.
const (
	CSV   Format = "csv"
	JSONL Format = "jsonl"
)

// FormatOf picks the format from a file name: .csv, or .jsonl / .ndjson.
func FormatOf(name string) (Format, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return CSV, nil
	case ".jsonl", ".ndjson":
		return JSONL, nil
	}
	return "", fmt.Errorf("%s: rows come as .csv (a header line, then one row a line) or .jsonl (one JSON object a line)", name)
}

// Row is one input row: its line and its cells by column. A CSV cell is
// a string (Text); a JSONL value is already typed (JSON).
type Row struct {
	Line int
	// Text holds a CSV row's cells by column; JSON a JSONL row's values.
	Text map[string]string
	JSON map[string]json.RawMessage
}

// Columns returns the row's column names, in the input's order.
func (r *Reader) Columns() []string { return r.header }

// Reader reads rows one at a time.
type Reader struct {
	name   string
	format Format
	csv    *csv.Reader
	lines  *bufio.Scanner
	header []string
	line   int
}

// Problem is one thing wrong with the input: at a line, maybe a column.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  string `json:"column,omitempty"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Line == 0 { // not of a row: an --arg
		return fmt.Sprintf("%s: %s: %s", p.File, p.Column, p.Message)
	}
	if p.Column != "" {
		return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Column, p.Message)
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
}

// Error is a problem that stops reading (the header, the encoding).
type Error struct{ Problem }

func (e *Error) Error() string { return e.Problem.String() }

// NewReader reads rows of the format from r; name is used in problems.
// A CSV input's header is read here.
func NewReader(name string, format Format, r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3) // a UTF-8 BOM is not part of the first column's name
	} else if b, err := br.Peek(2); err == nil && (bytes.Equal(b, []byte{0xFF, 0xFE}) || bytes.Equal(b, []byte{0xFE, 0xFF})) {
		return nil, &Error{Problem{File: name, Line: 1, Message: "the file is UTF-16; save it as UTF-8"}}
	}
	rd := &Reader{name: name, format: format}
	switch format {
	case CSV:
		rd.csv = csv.NewReader(&limited{r: br, max: MaxRowBytes})
		rd.csv.ReuseRecord = false
		head, err := rd.csv.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, &Error{Problem{File: name, Line: 1, Message: "empty file: a CSV input starts with a header line naming its columns"}}
			}
			return nil, rd.csvError(err)
		}
		seen := map[string]bool{}
		for i, h := range head {
			h = strings.TrimSpace(h)
			if !utf8.ValidString(h) {
				return nil, &Error{Problem{File: name, Line: 1, Message: "the header is not UTF-8: save the file as UTF-8"}}
			}
			if h == "" {
				return nil, &Error{Problem{File: name, Line: 1, Message: fmt.Sprintf("column %d has no name", i+1)}}
			}
			if seen[h] {
				return nil, &Error{Problem{File: name, Line: 1, Column: h, Message: "the column is named twice"}}
			}
			seen[h] = true
			head[i] = h
		}
		rd.header = head
		rd.line = 1
	case JSONL:
		rd.lines = bufio.NewScanner(br)
		rd.lines.Buffer(make([]byte, 64<<10), MaxRowBytes)
	default:
		return nil, fmt.Errorf("batch: unknown format %q", format)
	}
	return rd, nil
}

// Next returns the next row; io.EOF at the end. A row that cannot be read
// (ragged, not UTF-8, not an object) is a *Error when reading cannot go
// on, else a Problem returned with ok false and reading goes on.
func (r *Reader) Next(ctx context.Context) (Row, *Problem, error) {
	if err := ctx.Err(); err != nil {
		return Row{}, nil, err
	}
	if r.format == CSV {
		rec, err := r.csv.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Row{}, nil, io.EOF
			}
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return Row{}, &Problem{File: r.name, Line: pe.StartLine, Message: fmt.Sprintf("the row has %d cells, the header %d", len(rec), len(r.header))}, nil
			}
			return Row{}, nil, r.csvError(err)
		}
		line, _ := r.csv.FieldPos(0)
		r.line = line
		row := Row{Line: line, Text: make(map[string]string, len(rec))}
		for i, c := range rec {
			if !utf8.ValidString(c) {
				return Row{}, &Problem{File: r.name, Line: line, Column: r.header[i], Message: "the cell is not UTF-8 (save the file as UTF-8)"}, nil
			}
			row.Text[r.header[i]] = c
		}
		return row, nil, nil
	}
	for r.lines.Scan() {
		r.line++
		b := bytes.TrimSpace(r.lines.Bytes())
		if len(b) == 0 {
			continue
		}
		if !utf8.Valid(b) {
			return Row{}, &Problem{File: r.name, Line: r.line, Message: "the line is not UTF-8"}, nil
		}
		var obj map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
			return Row{}, &Problem{File: r.name, Line: r.line, Message: "each line is one JSON object of arguments"}, nil
		}
		return Row{Line: r.line, JSON: obj}, nil, nil
	}
	if err := r.lines.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Row{}, nil, &Error{Problem{File: r.name, Line: r.line + 1, Message: fmt.Sprintf("a line is longer than %d KiB", MaxRowBytes>>10)}}
		}
		return Row{}, nil, err
	}
	return Row{}, nil, io.EOF
}

func (r *Reader) csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{Problem{File: r.name, Line: pe.Line, Message: pe.Err.Error()}}
	}
	if errors.Is(err, errRowTooLong) {
		return &Error{Problem{File: r.name, Line: r.line + 1, Message: fmt.Sprintf("a row is longer than %d KiB", MaxRowBytes>>10)}}
	}
	return err
}

var errRowTooLong = errors.New("row too long")

// limited fails a read once max bytes pass without a newline, so one
// endless quoted cell cannot take all memory.
type limited struct {
	r     *bufio.Reader
	max   int
	since int
}

func (l *limited) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' {
			l.since = 0
		} else if l.since++; l.since > l.max {
			return 0, errRowTooLong
		}
	}
	return n, err
}
