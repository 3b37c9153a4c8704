package vocab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// declared maps each vocabulary type to its constants (Go name -> value) as
// this package's source declares them.
func declared(t *testing.T) map[string]map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				typ, ok := vs.Type.(*ast.Ident)
				if !ok || len(vs.Values) != 1 {
					t.Fatalf("const %s: want one typed value per constant", vs.Names[0])
				}
				lit, ok := vs.Values[0].(*ast.BasicLit)
				if !ok {
					t.Fatalf("const %s: want a string literal", vs.Names[0])
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				if out[typ.Name] == nil {
					out[typ.Name] = map[string]string{}
				}
				out[typ.Name][vs.Names[0].Name] = v
			}
		}
	}
	return out
}

type named interface {
	~string
	GoName() string
	Valid() bool
}

// listed is a list's values keyed by their derived Go names.
func listed[T named](t *testing.T, list []T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, v := range list {
		if !v.Valid() {
			t.Errorf("%q is listed but not Valid", v)
		}
		if _, dup := out[v.GoName()]; dup {
			t.Errorf("%q is listed twice", v)
		}
		out[v.GoName()] = string(v)
	}
	return out
}

// TestListsMatchDeclarations: every declared constant is in its list, and
// GoName names it, so generated code that spells GoName compiles.
func TestListsMatchDeclarations(t *testing.T) {
	decl := declared(t)
	for _, tc := range []struct {
		typ  string
		list map[string]string
	}{
		{"Action", listed(t, Actions())},
		{"CondKind", listed(t, CondKinds())},
		{"Op", listed(t, Ops())},
		{"State", listed(t, States())},
		{"Read", listed(t, Reads())},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			d := decl[tc.typ]
			if len(d) == 0 {
				t.Fatalf("no %s constants declared", tc.typ)
			}
			for name, v := range d {
				if got, ok := tc.list[name]; !ok || got != v {
					t.Errorf("const %s = %q: the list has %q under that Go name", name, v, got)
				}
			}
			for name, v := range tc.list {
				if _, ok := d[name]; !ok {
					t.Errorf("listed %q derives Go name %s, which is not declared", v, name)
				}
			}
		})
	}
	if len(decl) != 5 {
		t.Errorf("constants of %d types declared, want 5 (Action, CondKind, Op, State, Read)", len(decl))
	}
}

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"click", true}, {"Click", false}, {"extract", false}, {"", false},
	} {
		if got := Action(tc.name).Valid(); got != tc.ok {
			t.Errorf("Action(%q).Valid() = %v, want %v", tc.name, got, tc.ok)
		}
	}
	if !CondKind("url_matches").Valid() || CondKind("url").Valid() {
		t.Error("CondKind.Valid")
	}
	if !Op("lte").Valid() || Op("le").Valid() {
		t.Error("Op.Valid")
	}
	if !State("hidden").Valid() || State("open").Valid() {
		t.Error("State.Valid")
	}
	if !Read("action_menu").Valid() || Read("click").Valid() || Action("action_menu").Valid() {
		t.Error("Read.Valid")
	}
}

func TestListsAreCopies(t *testing.T) {
	a := Actions()
	a[0] = "changed"
	if Actions()[0] != ActGoto {
		t.Error("Actions returned the package's own slice")
	}
}

func TestGoName(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{ActGoto.GoName(), "ActGoto"},
		{CondURLMatches.GoName(), "CondURLMatches"},
		{CondListCountDelta.GoName(), "CondListCountDelta"},
		{OpNotEquals.GoName(), "OpNotEquals"},
		{OpGTE.GoName(), "OpGTE"},
		{StateUnchecked.GoName(), "StateUnchecked"},
	} {
		if tc.got != tc.want {
			t.Errorf("GoName = %s, want %s", tc.got, tc.want)
		}
	}
}
