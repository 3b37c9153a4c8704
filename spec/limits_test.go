package spec

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// badSpecDeadline bounds every bad-spec case: reading one file must finish
// well within it (the slowest case takes a fraction of a second).
const badSpecDeadline = 20 * time.Second

// specWith is a spec whose name, intent and steps are given.
func specWith(name, intent, steps string) []byte {
	return []byte(fmt.Sprintf("macrokit: 1\nname: %s\nversion: 1.0.0\nintent: %s\nrisk: read\nsteps:\n%s", name, intent, steps))
}

// askedBy is an act macro whose one parameter lists n asked_by phrases.
func askedBy(n int) []byte {
	return []byte("macrokit: 1\nname: asks\nversion: 1.0.0\nintent: x\nrisk: act\n" +
		"params: {properties: {a: {type: boolean, default: false, consequential: {asked_by: [" + numbered("say %d", n, ", ") + "]}}}}\nsteps:\n" + oneStep)
}

const oneStep = "  - goto: https://example.com\n"

// nestedSteps is a macro with n steps at the top level and m in a foreach.
func nestedSteps(n, m int) []byte {
	return []byte("macrokit: 1\nname: nested\nversion: 1.0.0\nintent: x\nrisk: read\n" +
		"params: {properties: {xs: {type: array, items: {type: string}}}}\nsteps:\n" +
		strings.Repeat(oneStep, n) + "  - foreach:\n      in: \"{{ xs }}\"\n      as: x\n      max: 2\n      steps:\n" +
		strings.Repeat("    "+oneStep, m))
}

// readBounded reads data as a file of dir through LoadDir (or in memory
// through ParseFile and LoadFiles when dir is empty) and fails the test
// when that panics or does not finish before the deadline.
func readBounded(t *testing.T, dir string, data []byte) Diagnostics {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), badSpecDeadline)
	defer cancel()
	type out struct {
		diags Diagnostics
		panic any
	}
	done := make(chan out, 1)
	go func() {
		var o out
		defer func() {
			o.panic = recover()
			done <- o
		}()
		if dir != "" {
			path := filepath.Join(dir, "f.yaml")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				panic(err)
			}
			_, o.diags = LoadDir(dir, testOptions)
			return
		}
		_, o.diags = ParseFile("f.yaml", data)
		if _, all := LoadFiles([]File{{"f.yaml", data}}, testOptions); (len(all) == 0) != (len(o.diags) == 0) {
			o.diags = append(o.diags, Diagnostic{File: "f.yaml", Line: 1, Col: 1, Msg: "LoadFiles and ParseFile disagree:\n" + all.Error()})
		}
	}()
	select {
	case o := <-done:
		if o.panic != nil {
			t.Fatalf("panic: %v", o.panic)
		}
		return o.diags
	case <-ctx.Done():
		t.Fatalf("reading the spec did not finish within %s", badSpecDeadline)
		return nil
	}
}

// TestBadSpecs: hostile and broken spec files are each reported at a
// line (and a column unless yaml.v3 gives none), with no panic, no
// internal error and no hang. Huge files are generated here, not
// committed; the golden cases invalid_* hold the smaller ones.
func TestBadSpecs(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 0, "a"; i < 9; i++ {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", ") + "]\n"
		prev = name
	}
	rng := rand.New(rand.NewSource(13))
	binary := make([]byte, 64<<10)
	rng.Read(binary)
	cases := []struct {
		name string
		data []byte
		// dir: read through LoadDir from a temporary directory
		dir bool
		// want is the first diagnostic's "line:col: text" (a prefix, after
		// "f.yaml:"); "" wants no diagnostic at all.
		want string
		// lineOnly: yaml.v3 reports this one with a line and no column.
		lineOnly bool
		// also is the text of another diagnostic wanted.
		also string
	}{
		{name: "name of 10,000 characters", data: specWith(strings.Repeat("a", 10000), "x", oneStep),
			want: `2:7: name: macro name "aaaaaaaaaaaaaaaaaaaaaaaa"… is 10000 characters long; the limit is 64`},
		{name: "name of 65 characters", data: specWith(strings.Repeat("n", 65), "x", oneStep), want: "2:7: name: macro name"},
		{name: "name of 64 characters", data: specWith(strings.Repeat("n", MaxNameLen), "x", oneStep)},
		{name: "name func", data: specWith("func", "x", oneStep), want: `2:7: name: macro name "func" is a Go keyword`},
		{name: "name type", data: specWith("type", "x", oneStep), want: `2:7: name: macro name "type" is a Go keyword`},
		{name: "name string", data: specWith("string", "x", oneStep), want: `2:7: name: macro name "string" is a predeclared Go identifier`},
		{name: "name init", data: specWith("init", "x", oneStep)},
		{name: "name main", data: specWith("main", "x", oneStep)},
		{name: "intent of 50 MB, from a directory", dir: true, data: specWith("big", strings.Repeat("x", 50<<20), oneStep),
			want: "4:1048540: the spec file is larger than 1 MiB"},
		{name: "intent of 50 MB, in memory", data: specWith("big", strings.Repeat("x", 50<<20), oneStep),
			want: "4:1048540: the spec file is larger than 1 MiB"},
		{name: "file of exactly 1 MiB", data: func() []byte {
			b := specWith("exact", "x", oneStep)
			return append(b, append([]byte("#"), bytes.Repeat([]byte("c"), MaxFileSize-len(b)-1)...)...)
		}()},
		{name: "intent of 4097 characters", data: specWith("long", strings.Repeat("é", MaxTextLen+1), oneStep),
			want: "4:9: intent: intent is 4097 characters long; the limit is 4096"},
		{name: "intent of 4096 characters", data: specWith("long", strings.Repeat("é", MaxTextLen), oneStep)},
		{name: "value of 100 KB", data: specWith("huge", "x", "  - goto: https://example.com/"+strings.Repeat("v", 100<<10)+"\n"),
			want: "7:11: a value of 102420 bytes: the limit is 65536 bytes"},
		{name: "1000 steps", data: specWith("thousand", "x", strings.Repeat(oneStep, MaxSteps))},
		{name: "1001 steps", data: specWith("many", "x", strings.Repeat(oneStep, MaxSteps+1)),
			want: "1007:5: steps[1000]: a macro has at most 1000 steps"},
		{name: "1001 steps, 401 of them nested", data: nestedSteps(600, 401),
			want: "1012:9: steps[600].foreach.steps[399]: a macro has at most 1000 steps"},
		// 70,000 steps of three nodes each: more nodes than the alias
		// check allows, but no alias; the steps limit speaks first.
		{name: "70,000 steps, no alias", data: specWith("many", "x", strings.Repeat("  - a: b\n", 70000)),
			want: "1007:5: steps[1000]: a macro has at most 1000 steps"},
		{name: "100,000 steps in a flow list", data: specWith("many", "x", "  ["+strings.Repeat("a,", 100000)+"a]\n"),
			want: "7:2004: steps[1000]: a macro has at most 1000 steps"},
		{name: "100,000 steps over 1 MiB", data: specWith("many", "x", strings.Repeat(oneStep, 100000)),
			want: "34957:11: the spec file is larger than 1 MiB"},
		{name: "250,000 nodes, no alias", data: specWith("nodes", "x", oneStep+"examples: ["+strings.Repeat("["+strings.Repeat("x,", 999)+"x],", 250)+"x]\n"),
			want: "8:399975: the document has more than 200000 YAML nodes"},
		{name: "enum of 1001 values", data: specWith("enum", "x", oneStep+"params: {properties: {t: {type: string, enum: ["+strings.Repeat("a,", 1000)+"b]}}}\n"),
			want: "8:2048: a list has more than 1000 items, the limit"},
		{name: "enum of 1000 values", data: specWith("enum", "x", oneStep+"params: {properties: {t: {type: string, enum: ["+numbered("v%d", 1000, ", ")+"]}}}\n")},
		{name: "33 asked_by phrases", data: askedBy(33), want: "6:331: params.properties.a.consequential.asked_by: asked_by lists 33 phrases, more than 32"},
		{name: "32 asked_by phrases", data: askedBy(MaxAskedBy)},
		{name: "1001 properties", data: specWith("props", "x", oneStep+"params: {properties: {"+numbered("p%d: {}", 1001, ", ")+"}}\n"),
			want: "8:"},
		{name: "1000 parameters, 10,000 unknown references", data: specWith("refs", "x",
			"  - goto: \""+numbered("{{ q%d }}", 6000, "")+"\"\n  - goto: \""+numbered("{{ r%d }}", 4000, "")+"\"\n"+
				"params: {properties: {"+numbered("p%d: {type: string}", 1000, ", ")+"}}\n"),
			want: "7:12: steps[0].goto: unknown name \"q0\"", also: "too many problems: this file is not checked further after 100"},
		{name: "alias bomb", data: append(specWith("bomb", "x", oneStep), bomb...), want: "13:4: document is too large once aliases are expanded"},
		{name: "alias cycle", data: specWith("cycle", "x", "  &s [{foreach: {in: x, as: y, max: 1, steps: *s}}]\n"),
			want: "7:3: alias refers to a node that contains it"},
		{name: "nesting deeper than 10,000", data: specWith("deep", "x", "  - goto: "+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+"\n"),
			want: "7: invalid YAML: exceeded max depth of 10000", lineOnly: true},
		{name: "nesting 9,000 deep", data: specWith("deep", "x", "  - goto: "+strings.Repeat("[", 9000)+strings.Repeat("]", 9000)+"\n"),
			want: "7:11: steps[0].goto: expected a string, got a list"},
		{name: "duplicate keys", data: append(specWith("dup", "x", oneStep), "risk: act\n"...),
			want: `8:1: duplicate key "risk" (first at line 5)`},
		{name: "BOM", data: append([]byte("\ufeff"), specWith("bom", "x", oneStep)...)},
		{name: "BOM, then an error", data: append([]byte("\ufeff"), specWith("Bom", "x", oneStep)...),
			want: `2:7: name: macro name "Bom" must be snake_case`},
		{name: "invalid UTF-8", data: specWith("bad", "caf\xe9 au lait", oneStep), want: "4:12: invalid UTF-8 (byte 0xE9)"},
		{name: "UTF-16", data: []byte("\xff\xfem\x00a\x00"), want: "1:1: the file is UTF-16"},
		{name: "NUL byte", data: specWith("nul", "a\x00b", oneStep), want: "4:10: a NUL byte"},
		{name: "NUL in a name", data: specWith("n\x00ul", "x", oneStep), want: "2:8: a NUL byte"},
		{name: "control character", data: specWith("bell", "ding \x07", oneStep), want: "4:14: control character U+0007"},
		{name: "C1 control character", data: specWith("c1", "x \u0090", oneStep), want: "4:11: control character U+0090"},
		{name: "U+FFFE", data: specWith("ffe", "x \ufffe", oneStep), want: "4:11: character U+FFFE is not allowed"},
		{name: "control character after CRLF lines", data: bytes.ReplaceAll(specWith("crlf", "x\x01", oneStep), []byte("\n"), []byte("\r\n")),
			want: "4:10: control character U+0001"},
		{name: "escaped control character", data: specWith("esc", `"x \e"`, oneStep), want: "4:9: intent: intent holds the control character U+001B"},
		{name: "binary", data: binary, want: "1:"},
		{name: "empty", data: nil, want: "1:1: empty spec file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := ""
			if tc.dir {
				dir = t.TempDir()
			}
			diags := readBounded(t, dir, tc.data)
			if tc.want == "" {
				if len(diags) > 0 {
					t.Fatalf("unexpected diagnostics:\n%s", clipText(diags.Error()))
				}
				return
			}
			if len(diags) == 0 {
				t.Fatalf("no diagnostic, want %s", tc.want)
			}
			base := "f.yaml"
			if tc.dir {
				base = filepath.Join(dir, "f.yaml")
			}
			if got := diags[0].String(); !strings.HasPrefix(got, base+":"+tc.want) {
				t.Errorf("first diagnostic\n%s\nwant one starting\n%s:%s", clipText(got), base, tc.want)
			}
			if len(diags) > MaxDiagnostics+1 {
				t.Errorf("%d diagnostics, more than MaxDiagnostics and the one saying so", len(diags))
			}
			if tc.also != "" && !strings.Contains(diags.Error(), tc.also) {
				t.Errorf("no diagnostic %q", tc.also)
			}
			for _, d := range diags {
				if strings.Contains(d.Msg, "internal error") {
					t.Errorf("%s", clipText(d.String()))
				}
				if d.Line < 1 || (d.Col < 1 && !tc.lineOnly) {
					t.Errorf("not positioned: %s", clipText(d.String()))
				}
			}
		})
	}
}

// numbered joins format applied to 0..n-1 with sep.
func numbered(format string, n int, sep string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(format, i)
	}
	return strings.Join(items, sep)
}

func clipText(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// TestBytePosCountsAsYAML: the positions limits.go computes from byte
// offsets are the positions yaml.v3 gives its nodes, whatever the line
// breaks (LF, CRLF, CR, NEL, LS, PS) and however wide the characters.
func TestBytePosCountsAsYAML(t *testing.T) {
	docs := []string{
		"a: k1\nb: [k2, 'k3']\n",
		"a: k1\r\nb: k2\r\n  \r\nc: {x: k3}\r\n",
		"a: k1\rb: k2\r",
		"a: é€😀 k1\nb: \"😀\" \nc: k2",
		"a: k1\u0085b: k2\n",
		"a: k1\u2028b: k2\u2029c: k3\n",
		"# ✓\tcomment\n-  k1\n- [ k2 ,\t k3 ]\n",
	}
	for _, doc := range docs {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		found := 0
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode && strings.HasPrefix(n.Value, "k") {
				found++
				off := strings.Index(doc, n.Value)
				if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
					off-- // the node starts at its quote
				}
				got := bytePos("f", []byte(doc), off)
				if got.Line != n.Line || got.Col != n.Column {
					t.Errorf("%q: %s at %d:%d, bytePos says %d:%d", doc, n.Value, n.Line, n.Column, got.Line, got.Col)
				}
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(&root)
		if found == 0 {
			t.Errorf("%q: no scalar to compare", doc)
		}
	}
}

// TestReferencesOnOneLineAreLinear: placing each reference of a long line
// (offsetPos) indexes the line once. 9,000 references on one line (as
// many as a 64 KiB value holds) took about 15 s when each re-read the
// line; now well under the generous bound.
func TestReferencesOnOneLineAreLinear(t *testing.T) {
	data := specWith("refs", "x", "  - goto: \""+strings.Repeat("{{ a }}", 9000)+"\"\n")
	start := time.Now()
	diags := readBounded(t, "", data)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("9,000 references on one line took %s", took)
	}
	if len(diags) == 0 || diags[0].Line != 7 || diags[0].Col != 12 {
		t.Errorf("diagnostics %v, want the first unknown reference at 7:12", diags[:min(len(diags), 1)])
	}
}
