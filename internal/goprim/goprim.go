package goprim

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/macrokit/macrokit-go/gen"
	"github.com/macrokit/macrokit-go/spec"
)

// Directive marks a primitive function.
const Directive = "//macrokit:primitive"

// RegistrationFile is the file of the generated package that registers the
// primitives (func Primitives() runtime.Primitives).
const RegistrationFile = "primitives.go"

// Primitive is one marked function.
type Primitive struct {
	// Name is the name specs call it by.
	Name string
	// Func is the Go function's name.
	Func string
	// HasResult is false for func(context.Context, A) error.
	HasResult bool
	// TakesPage is set for func(context.Context, *runtime.Page, A) ...:
	// the primitive gets its call's page.
	TakesPage bool
	// Signature is what the spec checker needs.
	Signature spec.Signature
	// Pos is where the function is declared.
	Pos token.Position
}

// Package is the primitives of one Go package.
type Package struct {
	// Name is the Go package name.
	Name string
	// ImportPath is the package's import path, from the enclosing go.mod.
	ImportPath string
	// Primitives are sorted by Name.
	Primitives []Primitive
}

// Error is one problem with a primitive's declaration, at its position.
type Error struct {
	Pos token.Position
	Msg string
}

// Error renders file:line:col: message, like spec diagnostics.
func (e Error) Error() string {
	if e.Pos.IsValid() {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return e.Msg
}

// Errors are every problem found; Scan reports them all.
type Errors []Error

// Error joins the problems, one per line.
func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Scan parses the Go package in dir (test files excluded) and returns its
// primitives. Problems are returned as Errors.
func Scan(dir string) (*Package, error) {
	fset := token.NewFileSet()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("primitives: %w", err)
	}
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("primitives: %w", err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("primitives: no Go files in %s", dir)
	}
	imp, err := importPath(dir)
	if err != nil {
		return nil, err
	}
	s := &scanner{fset: fset, types: map[string]*ast.TypeSpec{}}
	pkg := &Package{Name: files[0].Name.Name, ImportPath: imp}
	for _, f := range files {
		if f.Name.Name != pkg.Name {
			s.errf(f.Name.Pos(), "package %s, but %s is package %s", f.Name.Name, fset.Position(files[0].Name.Pos()).Filename, pkg.Name)
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, sp := range gd.Specs {
					ts := sp.(*ast.TypeSpec)
					s.types[ts.Name.Name] = ts
				}
			}
		}
	}
	seen := map[string]token.Position{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name, marked := directive(fd.Doc)
			if !marked {
				continue
			}
			p, ok := s.primitive(f, fd, name)
			if !ok {
				continue
			}
			if prev, dup := seen[p.Name]; dup {
				s.errf(fd.Pos(), "primitive %q is declared twice (first at %s)", p.Name, prev)
				continue
			}
			seen[p.Name] = p.Pos
			pkg.Primitives = append(pkg.Primitives, p)
		}
	}
	if len(s.errs) > 0 {
		sort.SliceStable(s.errs, func(i, j int) bool {
			a, b := s.errs[i].Pos, s.errs[j].Pos
			if a.Filename != b.Filename {
				return a.Filename < b.Filename
			}
			return a.Offset < b.Offset
		})
		return nil, s.errs
	}
	sort.Slice(pkg.Primitives, func(i, j int) bool { return pkg.Primitives[i].Name < pkg.Primitives[j].Name })
	return pkg, nil
}

// directive reports whether a doc comment carries the primitive directive,
// and the name it gives (empty: the default).
func directive(doc *ast.CommentGroup) (string, bool) {
	if doc == nil {
		return "", false
	}
	for _, c := range doc.List {
		rest, ok := strings.CutPrefix(c.Text, Directive)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		return strings.TrimSpace(rest), true
	}
	return "", false
}

type scanner struct {
	fset  *token.FileSet
	types map[string]*ast.TypeSpec
	errs  Errors
}

func (s *scanner) errf(pos token.Pos, format string, args ...any) {
	s.errs = append(s.errs, Error{Pos: s.fset.Position(pos), Msg: fmt.Sprintf(format, args...)})
}

const shape = "want func(context.Context, Args) (Result, error) or func(context.Context, Args) error, with *runtime.Page after the context for a primitive that takes the call's page"

// runtimePath is the package of runtime.Page, the handle a primitive that
// takes its call's page declares.
const runtimePath = "github.com/macrokit/macrokit-go/runtime"

// pageParam reports whether e is *runtime.Page under the file's import
// name of the runtime package, and, when it is not, why it looks like a
// page that is spelled wrong ("" when it does not look like one at all).
func pageParam(f *ast.File, e ast.Expr) (ok bool, wrong string) {
	rt := importName(f, runtimePath)
	isPage := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Page" {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && rt != "" && x.Name == rt
	}
	if st, ok := e.(*ast.StarExpr); ok && isPage(st.X) {
		return true, ""
	}
	if isPage(e) {
		return false, "take the page as *runtime.Page (a pointer), not runtime.Page"
	}
	if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel.Name == "Page" {
		return false, "the page a primitive takes is *runtime.Page of " + runtimePath + " (the engine's page is reached through it, with evidence and redaction)"
	}
	if st, ok := e.(*ast.StarExpr); ok {
		if sel, ok := st.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Page" {
			return false, "the page a primitive takes is *runtime.Page of " + runtimePath + " (the engine's page is reached through it, with evidence and redaction)"
		}
	}
	return false, ""
}

func (s *scanner) primitive(f *ast.File, fd *ast.FuncDecl, name string) (Primitive, bool) {
	fn := fd.Name.Name
	if name == "" {
		name = SnakeCase(fn)
	}
	p := Primitive{Name: name, Func: fn, Pos: s.fset.Position(fd.Pos())}
	nerr := len(s.errs)
	if !nameRE.MatchString(name) {
		s.errf(fd.Pos(), "%s: primitive name %q must be snake_case (a-z, 0-9, _)", fn, name)
	}
	if fd.Recv != nil || !ast.IsExported(fn) {
		s.errf(fd.Pos(), "%s: a primitive must be an exported top-level function, not a method", fn)
		return p, false
	}
	if fd.Type.TypeParams != nil {
		s.errf(fd.Pos(), "%s: a primitive cannot be generic", fn)
		return p, false
	}
	params := fields(fd.Type.Params)
	for i, pe := range params {
		ok, wrong := pageParam(f, pe)
		switch {
		case wrong != "":
			s.errf(pe.Pos(), "%s: %s", fn, wrong)
			return p, false
		case ok && i != 1:
			s.errf(pe.Pos(), "%s: the page comes right after the context: func(context.Context, *runtime.Page, Args)", fn)
			return p, false
		case ok && len(params) == 2:
			s.errf(fd.Type.Pos(), "%s: a primitive that takes the page still takes its arguments: func(context.Context, *runtime.Page, Args) (declare an empty struct type for none)", fn)
			return p, false
		case ok:
			p.TakesPage = true
			p.Signature.Page = true
		}
	}
	if p.TakesPage {
		params = append(params[:1:1], params[2:]...)
	}
	if len(params) != 2 || !isContext(f, params[0]) {
		s.errf(fd.Type.Pos(), "%s: %s", fn, shape)
		return p, false
	}
	argName, ok := params[1].(*ast.Ident)
	ts := s.types[argName.String()]
	if !ok || ts == nil {
		s.errf(params[1].Pos(), "%s: the arguments must be a struct type declared in this package (e.g. %sArgs), not %s", fn, fn, s.expr(params[1]))
		return p, false
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		s.errf(params[1].Pos(), "%s: the arguments type %s must be a struct", fn, argName.Name)
		return p, false
	}
	argType := s.object(st, true, map[string]bool{argName.Name: true})
	if argType != nil {
		p.Signature.Params = argType.Props
	}
	results := fields(fd.Type.Results)
	switch {
	case len(results) == 1 && isIdent(results[0], "error"):
	case len(results) == 2 && isIdent(results[1], "error"):
		p.HasResult = true
		p.Signature.Result = s.typeOf(results[0], false, map[string]bool{})
	default:
		s.errf(fd.Type.Pos(), "%s: %s", fn, shape)
		return p, false
	}
	p.Signature.Doc = docText(fd.Doc)
	return p, len(s.errs) == nerr
}

// fields flattens a field list (a, b int -> int, int).
func fields(fl *ast.FieldList) []ast.Expr {
	if fl == nil {
		return nil
	}
	var out []ast.Expr
	for _, f := range fl.List {
		n := max(len(f.Names), 1)
		for range n {
			out = append(out, f.Type)
		}
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// isContext reports whether e is context.Context under the file's import
// name of package context.
func isContext(f *ast.File, e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Context" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && importName(f, "context") == x.Name
}

// importName is the name a file uses for an import path ("" when not
// imported).
func importName(f *ast.File, p string) string {
	for _, im := range f.Imports {
		if v, _ := strconv.Unquote(im.Path.Value); v == p {
			if im.Name != nil {
				return im.Name.Name
			}
			return path.Base(p)
		}
	}
	return ""
}

func (s *scanner) expr(e ast.Expr) string {
	var b bytes.Buffer
	_ = format.Node(&b, s.fset, e)
	return b.String()
}

// typeOf maps a Go type expression onto a spec type; unsupported types
// are reported and mapped to any. seen guards recursive types.
func (s *scanner) typeOf(e ast.Expr, params bool, seen map[string]bool) *spec.Type {
	switch t := e.(type) {
	case *ast.Ident:
		switch t.Name {
		case "string":
			return spec.Scalar(spec.KindString)
		case "bool":
			return spec.Scalar(spec.KindBoolean)
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "byte", "rune":
			return spec.Scalar(spec.KindInteger)
		case "float32", "float64":
			return spec.Scalar(spec.KindNumber)
		case "any":
			return spec.Scalar(spec.KindAny)
		}
		ts := s.types[t.Name]
		if ts == nil {
			s.errf(t.Pos(), "type %s is not supported in a primitive's signature (declare it in this package, or use a JSON-shaped type)", t.Name)
			return spec.Scalar(spec.KindAny)
		}
		if seen[t.Name] {
			s.errf(t.Pos(), "type %s is recursive; a primitive's types must be finite", t.Name)
			return spec.Scalar(spec.KindAny)
		}
		inner := map[string]bool{t.Name: true}
		for k := range seen {
			inner[k] = true
		}
		if st, ok := ts.Type.(*ast.StructType); ok {
			return s.object(st, params, inner)
		}
		return s.typeOf(ts.Type, params, inner)
	case *ast.StarExpr:
		return s.typeOf(t.X, params, seen)
	case *ast.ArrayType:
		if id, ok := t.Elt.(*ast.Ident); ok && id.Name == "byte" && t.Len == nil {
			return spec.Scalar(spec.KindString) // encoding/json: base64
		}
		return spec.ArrayOf(s.typeOf(t.Elt, params, seen))
	case *ast.MapType:
		if !isIdent(t.Key, "string") {
			s.errf(t.Pos(), "map keys must be strings (JSON objects), not %s", s.expr(t.Key))
		}
		s.typeOf(t.Value, params, seen) // report unsupported values
		return spec.ObjectOf()
	case *ast.InterfaceType:
		if t.Methods != nil && len(t.Methods.List) > 0 {
			s.errf(t.Pos(), "an interface with methods is not a JSON value")
		}
		return spec.Scalar(spec.KindAny)
	case *ast.StructType:
		return s.object(t, params, seen)
	case *ast.SelectorExpr:
		switch s.expr(t) {
		case "time.Time":
			return &spec.Type{Kind: spec.KindString, Format: "date-time"}
		case "time.Duration":
			return spec.Scalar(spec.KindInteger)
		case "json.RawMessage", "json.Number":
			return spec.Scalar(spec.KindAny)
		}
		s.errf(t.Pos(), "type %s is not supported in a primitive's signature (use a type of this package or a JSON-shaped type)", s.expr(t))
		return spec.Scalar(spec.KindAny)
	}
	s.errf(e.Pos(), "type %s is not supported in a primitive's signature", s.expr(e))
	return spec.Scalar(spec.KindAny)
}

// object maps a struct to an object type: exported fields named by their
// json tags, required unless omitempty/omitzero or a pointer.
func (s *scanner) object(st *ast.StructType, params bool, seen map[string]bool) *spec.Type {
	var props []*spec.Property
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			s.errf(f.Pos(), "embedded field %s: name the field (embedding is not supported in a primitive's types)", s.expr(f.Type))
			continue
		}
		tag := ""
		if f.Tag != nil {
			raw, _ := strconv.Unquote(f.Tag.Value)
			tag = reflect.StructTag(raw).Get("json")
		}
		if tag == "-" {
			continue
		}
		jname, opts, _ := strings.Cut(tag, ",")
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if _, ptr := f.Type.(*ast.StarExpr); ptr {
			optional = true
		}
		doc := docText(f.Doc)
		if doc == "" {
			doc = docText(f.Comment)
		}
		for _, n := range f.Names {
			if !ast.IsExported(n.Name) {
				continue
			}
			name := jname
			if name == "" {
				name = n.Name
			}
			props = append(props, &spec.Property{Name: name, GoName: spec.GoName(name), Type: s.typeOf(f.Type, params, seen), Required: !optional, Description: doc})
		}
	}
	return spec.ObjectOf(props...)
}

// docText is a comment as one line of prose (directives dropped).
func docText(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	return strings.Join(strings.Fields(cg.Text()), " ")
}

// SnakeCase turns a Go name into a spec name: FormatGreeting ->
// format_greeting, ParseURL -> parse_url.
func SnakeCase(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]))
			nextLower := i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1])
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Signatures returns the primitives' signatures for the spec checker
// (spec.Options.Primitives).
func (p *Package) Signatures() map[string]spec.Signature {
	out := make(map[string]spec.Signature, len(p.Primitives))
	for _, pr := range p.Primitives {
		out[pr.Name] = pr.Signature
	}
	return out
}

// Registration renders RegistrationFile for the generated package pkgName:
// func Primitives() runtime.Primitives, each marked function adapted with
// runtime.TypedPrimitive (or TypedAction). The output is gofmt'd and
// depends only on the package's primitives.
func (p *Package) Registration(pkgName string) ([]byte, error) {
	alias := p.Name
	if alias == "runtime" || alias == pkgName {
		alias = "deployment" + alias
	}
	var b bytes.Buffer
	// gen.Header: the file is pruned and rewritten like the rest of the
	// generated package.
	fmt.Fprintf(&b, "%s\n\npackage %s\n\nimport (\n\t\"github.com/macrokit/macrokit-go/runtime\"\n", gen.Header, pkgName)
	if len(p.Primitives) > 0 {
		fmt.Fprintf(&b, "\n\t%s %q\n", alias, p.ImportPath)
	}
	fmt.Fprintf(&b, ")\n\n// Primitives returns the Go primitives of %s (its functions marked\n// %s), for app.Config.Primitives.\nfunc Primitives() runtime.Primitives {\n\treturn runtime.Primitives{\n", p.ImportPath, Directive)
	for _, pr := range p.Primitives {
		adapt := "TypedAction"
		if pr.HasResult {
			adapt = "TypedPrimitive"
		}
		if pr.TakesPage {
			adapt = strings.Replace(adapt, "Typed", "TypedPage", 1)
		}
		fmt.Fprintf(&b, "\t\t%q: runtime.%s(%s.%s),\n", pr.Name, adapt, alias, pr.Func)
	}
	b.WriteString("\t}\n}\n")
	return format.Source(b.Bytes())
}

// importPath is dir's import path: the module path of the nearest go.mod
// above it plus dir's path inside the module.
func importPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mod := ModulePath(data)
			if mod == "" {
				return "", fmt.Errorf("primitives: %s has no module line", filepath.Join(d, "go.mod"))
			}
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return "", err
			}
			if rel == "." {
				return mod, nil
			}
			return mod + "/" + filepath.ToSlash(rel), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("primitives: no go.mod above %s", abs)
		}
	}
}

// ModulePath reads the module directive of a go.mod file ("" when it has
// none).
func ModulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" {
			if v, err := strconv.Unquote(f[1]); err == nil {
				return v
			}
			return f[1]
		}
	}
	return ""
}
