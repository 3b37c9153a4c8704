package batch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/macrokit/macrokit-go/internal/editdist"
	"github.com/macrokit/macrokit-go/runtime"
)

// Mapping says how columns become arguments.
type Mapping struct {
	// Columns maps a column to the parameter it fills (--map
	// column=param); other columns fill the parameter of their own name.
	Columns map[string]string
	// Consts are arguments every row gets (--arg param=value), typed like
	// cells; a column for the same parameter is an error.
	Consts map[string]string
	// Key is the column whose value identifies a row (--key); "" keys rows
	// by a hash of their arguments.
	Key string
}

// Builder turns rows into one macro's arguments.
type Builder struct {
	m      *runtime.Macro
	props  map[string]map[string]any // the params schema's properties
	params []string                  // their names, sorted
	byCol  map[string]string         // column -> param
	byPar  map[string]string         // param -> column
	consts map[string]any
	key    string
}

// NewBuilder checks a mapping against the macro's parameters and the
// input's columns (nil for JSONL, whose rows name their own keys): every
// problem at once, as header problems (line 1).
func NewBuilder(file string, m *runtime.Macro, columns []string, mp Mapping) (*Builder, []Problem) {
	b := &Builder{m: m, props: map[string]map[string]any{}, byCol: map[string]string{}, byPar: map[string]string{}, consts: map[string]any{}, key: mp.Key}
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(m.Params, &schema)
	for k, v := range schema.Properties {
		b.props[k] = v
		b.params = append(b.params, k)
	}
	sort.Strings(b.params)
	var probs []Problem
	header := func(col, format string, args ...any) {
		probs = append(probs, Problem{File: file, Line: 1, Column: col, Message: fmt.Sprintf(format, args...)})
	}
	has := map[string]bool{}
	for _, c := range columns {
		has[c] = true
	}
	for col, par := range mp.Columns {
		if columns != nil && !has[col] {
			header(col, "--map names a column the input does not have%s", didYouMean(col, columns))
		}
		if b.props[par] == nil {
			header(col, "--map %s=%s: %s has no parameter %q%s", col, par, m.Name, par, didYouMean(par, b.params))
			continue
		}
		b.byCol[col] = par
	}
	for _, col := range columns {
		if _, mapped := mp.Columns[col]; mapped {
			continue
		}
		if b.props[col] != nil {
			b.byCol[col] = col
		} else if col != mp.Key {
			header(col, "no parameter of %s has this name%s; map it with --map %s=PARAM, or drop the column", m.Name, didYouMean(col, b.params), col)
		}
	}
	for col, par := range b.byCol {
		if other, dup := b.byPar[par]; dup {
			a, z := other, col
			if z < a {
				a, z = z, a
			}
			header(z, "columns %s and %s both fill parameter %s", a, z, par)
		}
		b.byPar[par] = col
	}
	for par, raw := range mp.Consts {
		if b.props[par] == nil {
			probs = append(probs, Problem{File: file, Line: 0, Column: par, Message: fmt.Sprintf("--arg: %s has no parameter %q%s", m.Name, par, didYouMean(par, b.params))})
			continue
		}
		if col, dup := b.byPar[par]; dup {
			header(col, "the column and --arg %s both set parameter %s", par, par)
		}
		v, err := typed(b.props[par], raw)
		if err != nil {
			probs = append(probs, Problem{File: file, Line: 0, Column: par, Message: "--arg: " + err.Error()})
			continue
		}
		b.consts[par] = v
	}
	if mp.Key != "" && columns != nil && !has[mp.Key] {
		header(mp.Key, "--key names a column the input does not have%s", didYouMean(mp.Key, columns))
	}
	sortProblems(probs)
	return b, probs
}

// Args builds and validates one row's arguments: the row's key and the
// arguments, or every problem of the row, by column.
func (b *Builder) Args(file string, row Row) (key string, args runtime.ValidArgs, probs []Problem) {
	obj := map[string]any{}
	for k, v := range b.consts {
		obj[k] = v
	}
	bad := func(col, msg string) {
		probs = append(probs, Problem{File: file, Line: row.Line, Column: col, Message: msg})
	}
	if row.Text != nil {
		for col, cell := range row.Text {
			par, ok := b.byCol[col]
			if !ok || strings.TrimSpace(cell) == "" {
				continue // an empty cell is an omitted argument
			}
			v, err := typed(b.props[par], cell)
			if err != nil {
				bad(col, err.Error())
				continue
			}
			obj[par] = v
		}
		key = row.Text[b.key]
	} else {
		for k, raw := range row.JSON {
			par := k
			if p, ok := b.byCol[k]; ok {
				par = p
			}
			if k == b.key {
				key = strings.Trim(string(raw), `"`)
				if b.props[par] == nil {
					continue
				}
			}
			var v any
			d := json.NewDecoder(bytes.NewReader(raw))
			d.UseNumber()
			_ = d.Decode(&v)
			obj[par] = v
		}
	}
	// The schema's checks run even when a cell could not be typed, so the
	// row's every problem shows at once; the untyped cells' own problems
	// stand for them.
	untyped := map[string]bool{}
	for _, p := range probs {
		untyped[b.byCol[p.Column]] = true
	}
	raw, _ := json.Marshal(obj)
	va, cerr := b.m.Validate(raw)
	if cerr != nil {
		if len(cerr.Args) == 0 {
			bad("", cerr.Message)
		}
		for _, a := range cerr.Args {
			par := strings.SplitN(strings.TrimPrefix(a.Pointer, "/"), "/", 2)[0]
			if a.Pointer == "" || par == "" {
				par = requiredParam(a.Message)
			}
			if untyped[par] {
				continue
			}
			col := b.byPar[par]
			if col == "" {
				col = par
			}
			bad(col, a.Message)
		}
	}
	if len(probs) > 0 {
		sortProblems(probs)
		return "", runtime.ValidArgs{}, probs
	}
	if key == "" {
		sum := sha256.Sum256(va.JSON())
		key = "sha256:" + hex.EncodeToString(sum[:8])
	}
	return key, va, nil
}

// requiredParam is the parameter a root-level "x is required" message
// names ("" when it names none).
func requiredParam(msg string) string {
	if name, ok := strings.CutSuffix(msg, " is required"); ok {
		return name
	}
	return ""
}

// typed reads a cell (or an --arg) as its parameter's schema type.
func typed(schema map[string]any, cell string) (any, error) {
	s := strings.TrimSpace(cell)
	switch schema["type"] {
	case "integer":
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return nil, fmt.Errorf("%q is not an integer", cell)
		}
		return json.Number(s), nil
	case "number":
		if _, err := strconv.ParseFloat(s, 64); err != nil || strings.ContainsAny(s, "xXpP_") || strings.EqualFold(s, "nan") || strings.Contains(strings.ToLower(s), "inf") {
			return nil, fmt.Errorf("%q is not a number", cell)
		}
		return json.Number(s), nil
	case "boolean":
		switch strings.ToLower(s) {
		case "true", "yes", "y", "1":
			return true, nil
		case "false", "no", "n", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a boolean (true/false, yes/no, 1/0)", cell)
	case "array", "object":
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil || d.More() {
			return nil, fmt.Errorf("expected a JSON %s in the cell, e.g. %s", schema["type"], map[any]string{"array": `["a","b"]`, "object": `{"k":"v"}`}[schema["type"]])
		}
		return v, nil
	}
	return cell, nil // strings (and untyped parameters) as written
}

func didYouMean(s string, candidates []string) string {
	best := editdist.Closest(s, candidates, 2)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Column < ps[j].Column
	})
}
