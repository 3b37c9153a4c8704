package refdata

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/xeipuuv/gojsonschema"
)

// Row is one verified row of a bundle file.
type Row struct {
	// Key is the row's key column as text ("" when the file has no key).
	Key string
	// Data is the row as canonical JSON.
	Data json.RawMessage
}

// rowSchema is a file's compiled row schema.
type rowSchema struct {
	compiled *gojsonschema.Schema
	props    map[string][]string
}

func compileSchema(f *FileEntry) (*rowSchema, error) {
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(f.Schema))
	if err != nil {
		return nil, err
	}
	return &rowSchema{compiled: s, props: f.Properties()}, nil
}

func schemaErr(f *FileEntry, row int, column, format string, args ...any) *Error {
	return &Error{Code: CodeSchemaInvalid, File: f.Path, Row: row, Column: column, Msg: fmt.Sprintf(format, args...)}
}

// batchRows is how many decoded rows are checked together: enough to keep
// every CPU busy, few enough that a 100k-row file is never held decoded
// all at once.
const batchRows = 4096

// parseRows decodes, types and validates a file's rows and extracts their
// keys. Rows are decoded in order and checked in batches, in parallel; the
// error reported is always the one of the lowest bad row.
func parseRows(ctx context.Context, f *FileEntry, data []byte, rs *rowSchema) ([]Row, error) {
	var out []Row
	keys := map[string]int{}
	batch := make([]map[string]any, 0, batchRows)
	first := 1 // the row number of batch[0]
	// flush checks the batch; pending is a decode error of the row after it,
	// reported only if no row of the batch fails first.
	flush := func(pending error) error {
		rows, errs := checkBatch(f, first, batch, rs)
		for i, r := range rows {
			if errs[i] != nil {
				return errs[i]
			}
			if f.Key != "" {
				n := first + i
				if prev, dup := keys[r.Key]; dup {
					return schemaErr(f, n, f.Key, "key %q repeats row %d", r.Key, prev)
				}
				keys[r.Key] = n
			}
			out = append(out, r)
		}
		if pending != nil {
			return pending
		}
		first += len(batch)
		clear(batch)
		batch = batch[:0]
		return ctx.Err()
	}
	flushFailed := false
	add := func(n int, obj map[string]any) error {
		batch = append(batch, obj)
		if len(batch) < batchRows {
			return nil
		}
		err := flush(nil)
		flushFailed = err != nil
		return err
	}
	var err error
	switch f.Format {
	case FormatJSON:
		err = eachJSONRow(f, data, add)
	case FormatCSV:
		err = eachCSVRow(f, data, rs.props, add)
	default:
		return nil, schemaErr(f, 0, "", "unknown format %q", f.Format)
	}
	if flushFailed {
		return nil, err
	}
	if err := flush(err); err != nil {
		return nil, err
	}
	return out, nil
}

// checkBatch validates and encodes rows first.. in parallel. Each row gets
// its Row or its error.
func checkBatch(f *FileEntry, first int, batch []map[string]any, rs *rowSchema) ([]Row, []error) {
	rows := make([]Row, len(batch))
	errs := make([]error, len(batch))
	check := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			rows[i], errs[i] = checkRow(f, first+i, batch[i], rs)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 || len(batch) < 256 {
		check(0, len(batch))
		return rows, errs
	}
	var wg sync.WaitGroup
	per := (len(batch) + workers - 1) / workers
	for lo := 0; lo < len(batch); lo += per {
		hi := min(lo+per, len(batch))
		wg.Add(1)
		go func() {
			defer wg.Done()
			check(lo, hi)
		}()
	}
	wg.Wait()
	return rows, errs
}

func checkRow(f *FileEntry, n int, obj map[string]any, rs *rowSchema) (Row, error) {
	var r Row
	if err := validateRow(f, n, obj, rs); err != nil {
		return r, err
	}
	if f.Key != "" {
		k, err := keyText(obj[f.Key])
		if err != nil {
			return r, schemaErr(f, n, f.Key, "key: %v", err)
		}
		r.Key = k
	}
	b, err := AppendCanonical(make([]byte, 0, 64), obj)
	if err != nil {
		return r, schemaErr(f, n, "", "%v", err)
	}
	r.Data = b
	return r, nil
}

func validateRow(f *FileEntry, n int, obj map[string]any, rs *rowSchema) error {
	res, err := rs.compiled.Validate(gojsonschema.NewRawLoader(obj))
	if err != nil {
		return schemaErr(f, n, "", "%v", err)
	}
	if res.Valid() {
		return nil
	}
	errs := res.Errors()
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field() < errs[j].Field() })
	e := errs[0]
	column := ""
	if p, ok := e.Details()["property"].(string); ok && (e.Field() == "(root)" || e.Field() == "") {
		column = p
	} else if fld := e.Field(); fld != "(root)" {
		column, _, _ = strings.Cut(fld, ".")
	}
	msg := e.Description()
	if fld := e.Field(); strings.Contains(fld, ".") {
		msg = fld + ": " + msg
	}
	if len(errs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	return schemaErr(f, n, column, "%s", msg)
}

// keyText renders a key value: strings as they are, integers in decimal.
func keyText(v any) (string, error) {
	switch t := v.(type) {
	case nil:
		return "", errors.New("missing or null")
	case string:
		return t, nil
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		if fl, err := t.Float64(); err == nil && fl == math.Trunc(fl) && math.Abs(fl) < 1<<53 {
			return strconv.FormatInt(int64(fl), 10), nil
		}
	}
	return "", fmt.Errorf("must be a string or an integer, got %s", jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a non-integral number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func eachJSONRow(f *FileEntry, data []byte, add func(int, map[string]any) error) error {
	v, err := DecodeStrict(data)
	if err != nil {
		return schemaErr(f, 0, "", "not JSON: %v", err)
	}
	arr, ok := v.([]any)
	if !ok {
		return schemaErr(f, 0, "", "want a JSON array of objects, got %s", jsonKind(v))
	}
	for i, e := range arr {
		obj, ok := e.(map[string]any)
		if !ok {
			return schemaErr(f, i+1, "", "want an object, got %s", jsonKind(e))
		}
		if err := add(i+1, obj); err != nil {
			return err
		}
	}
	return nil
}

func eachCSVRow(f *FileEntry, data []byte, props map[string][]string, add func(int, map[string]any) error) error {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		return schemaErr(f, 0, "", "no header row")
	}
	if err != nil {
		return schemaErr(f, 0, "", "header: %v", csvMsg(err))
	}
	header = slices.Clone(header)
	seen := map[string]bool{}
	types := make([][]string, len(header))
	for i, h := range header {
		if h == "" {
			return schemaErr(f, 0, "", "header: column %d has no name", i+1)
		}
		if seen[h] {
			return schemaErr(f, 0, h, "header: column named twice")
		}
		seen[h] = true
		types[i] = props[h]
	}
	for n := 1; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return schemaErr(f, n, "", "%v", csvMsg(err))
		}
		obj := make(map[string]any, len(rec))
		for i, cell := range rec {
			v, present, err := TypeCell(types[i], cell)
			if err != nil {
				return schemaErr(f, n, header[i], "%v", err)
			}
			if present {
				obj[header[i]] = v
			}
		}
		if err := add(n, obj); err != nil {
			return err
		}
	}
}

func csvMsg(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// TypeCell types one CSV cell by its column's JSON Schema types (see
// docs/refdata.md, "CSV typing"). present is false when the cell stands for
// an absent property: an empty cell of a column that is neither string nor
// null.
func TypeCell(types []string, cell string) (v any, present bool, err error) {
	if !utf8.ValidString(cell) {
		return nil, false, fmt.Errorf("%q is not valid UTF-8", cell)
	}
	if len(types) == 0 {
		return cell, true, nil
	}
	has := func(t string) bool { return slices.Contains(types, t) }
	if cell == "" {
		switch {
		case has("string"):
			return "", true, nil
		case has("null"):
			return nil, true, nil
		}
		return nil, false, nil
	}
	if has("boolean") {
		switch strings.ToLower(cell) {
		case "true":
			return true, true, nil
		case "false":
			return false, true, nil
		}
	}
	if has("integer") {
		if i, err := strconv.ParseInt(cell, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), true, nil
		}
	}
	if has("number") && jsonNumberRE.MatchString(cell) {
		if fl, err := strconv.ParseFloat(cell, 64); err == nil && !math.IsInf(fl, 0) {
			return json.Number(cell), true, nil
		}
	}
	if has("object") || has("array") {
		if x, err := DecodeStrict([]byte(cell)); err == nil {
			_, isObj := x.(map[string]any)
			_, isArr := x.([]any)
			if (isObj && has("object")) || (isArr && has("array")) {
				return x, true, nil
			}
		}
	}
	if has("string") {
		return cell, true, nil
	}
	return nil, false, fmt.Errorf("%q is not %s", cell, strings.Join(types, " or "))
}
