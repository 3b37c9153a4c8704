package spec

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// FuzzParseFile checks that no input makes ParseFile (or LoadFiles) panic,
// hit an internal error, or return unsorted or unpositioned diagnostics. The seed corpus is
// every spec of the golden corpus (golden/*/macros.d), valid and invalid.
func FuzzParseFile(f *testing.F) {
	paths, _ := filepath.Glob("../golden/*/macros.d/*.yaml")
	if len(paths) == 0 {
		f.Fatal("no seed specs in ../golden")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, diags := ParseFile("f.yaml", data)
		if !sort.SliceIsSorted(diags, func(i, j int) bool {
			a, b := diags[i], diags[j]
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Col < b.Col
		}) {
			t.Errorf("unsorted diagnostics:\n%s", diags)
		}
		for _, d := range diags {
			if strings.Contains(d.Msg, "internal error") {
				t.Fatalf("%s", d)
			}
			if d.File != "f.yaml" {
				t.Fatalf("diagnostic without file: %s", d)
			}
			if d.Line < 1 {
				t.Fatalf("diagnostic without a line: %s", d)
			}
		}
		if len(diags) == 0 && s == nil {
			t.Fatal("no spec and no diagnostic")
		}
		_, diags = LoadFiles([]File{{"f.yaml", data}}, testOptions)
		for _, d := range diags {
			if strings.Contains(d.Msg, "internal error") {
				t.Fatalf("%s", d)
			}
		}
	})
}

// FuzzTemplate checks the template and JSON path scanners on any string:
// no panic, and a template without errors splits into parts whose
// references re-render to something that parses the same way.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"{{ name }}", "a {{ order.id }} b", `\{{ x }}`, "{{ env.X }}/y", "{{", "}}{{}}",
		"{{ a | b }}", "$.items[0].name", `$["a b"][*]`, "$..x", "é{{é}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts, errs := parseTemplate(s)
		parseJSONPath(s)
		for _, e := range errs {
			if e.off < 0 || e.off > len(s) {
				t.Fatalf("error offset %d out of range for %q", e.off, s)
			}
		}
		if len(errs) > 0 {
			return
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Ref != nil {
				if p.Ref.off < 0 || p.Ref.off >= len(s) || !strings.HasPrefix(s[p.Ref.off:], "{{") {
					t.Fatalf("reference offset %d wrong in %q", p.Ref.off, s)
				}
				b.WriteString(p.Ref.String())
			} else {
				b.WriteString(strings.ReplaceAll(p.Lit, "{{", `\{{`))
			}
		}
		again, errs2 := parseTemplate(b.String())
		if len(errs2) > 0 || len(again) != len(parts) {
			t.Fatalf("%q re-rendered as %q parses differently: %v", s, b.String(), errs2)
		}
	})
}
