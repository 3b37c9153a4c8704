package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAgentFunctions proves the Go<->JS bridge: every agentFn constant in
// this package names a function of the live in-page agent, defined in the
// js/ file its group comment names, and every call into the agent passes one
// of those constants, never a string.
func TestAgentFunctions(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	consts := map[string]string{} // Go name -> in-page name
	defs := map[string]string{}   // Go name -> the js/ file its group comment names
	fileComment := regexp.MustCompile(`^// (js/\w+\.js)$`)
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			file := ""
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if vs.Doc != nil {
					for _, c := range vs.Doc.List {
						if m := fileComment.FindStringSubmatch(c.Text); m != nil {
							file = m[1]
						}
					}
				}
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "agentFn" {
					continue
				}
				for i, n := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: agentFn %s is not a string literal", fset.Position(n.Pos()), n.Name)
					}
					v, _ := strconv.Unquote(lit.Value)
					consts[n.Name] = v
					defs[n.Name] = file
				}
			}
		}
	}
	if len(consts) == 0 {
		t.Fatal("no agentFn constants found")
	}
	for goName, fn := range consts {
		src, err := jsFS.ReadFile(defs[goName])
		if err != nil {
			t.Errorf("agentFn %s: its group comment names no file of js/ (%q)", goName, defs[goName])
			continue
		}
		if !regexp.MustCompile(`(?m)^\s*mk\.` + regexp.QuoteMeta(fn) + `\s*=[^=]`).Match(src) {
			t.Errorf("agentFn %s: %s does not define mk.%s", goName, defs[goName], fn)
		}
	}
	// The fn argument's position in each bridge method.
	fnArg := map[string]int{"call": 2, "callObject": 1, "snapCallJSON": 2}
	sites := 0
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			ce, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := ce.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			i, ok := fnArg[sel.Sel.Name]
			if !ok || len(ce.Args) <= i {
				return true
			}
			sites++
			if id, ok := ce.Args[i].(*ast.Ident); !ok || consts[id.Name] == "" {
				t.Errorf("%s: %s passes %T, not an agentFn constant", fset.Position(ce.Pos()), sel.Sel.Name, ce.Args[i])
			}
			return true
		})
	}
	if sites == 0 {
		t.Fatal("found no calls into the agent")
	}

	p := newTestPage(t)
	ctx := testCtx(t, 20*time.Second)
	if err := p.Goto(ctx, fixtureURL("act_form.html")); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range consts {
		names = append(names, v)
	}
	var missing []string
	if err := p.evalJSON(ctx, &missing, `(names) => names.filter((n) => typeof window.__mk[n] !== 'function')`, names); err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("agentFn constants without an in-page function: %v", missing)
	}
}
