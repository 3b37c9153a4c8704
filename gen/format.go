package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strconv"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"
)

// render renders a jennifer file and formats it once: jennifer writes the
// source unformatted, groupImports splits its single sorted import block
// into standard library and the rest (as goimports does), and one parse
// and one print gofmt the result.
func render(f *jen.File) ([]byte, error) {
	f.NoFormat = true
	raw, grouped := buffers.Get().(*bytes.Buffer), buffers.Get().(*bytes.Buffer)
	defer buffers.Put(raw)
	defer buffers.Put(grouped)
	raw.Reset()
	grouped.Reset()
	if err := f.Render(raw); err != nil {
		return nil, err
	}
	if err := groupImports(grouped, raw.Bytes()); err != nil {
		return nil, err
	}
	return gofmt(grouped.Bytes())
}

// buffers recycles the intermediate sources of render (its output is new
// memory): a thousand files otherwise grow a thousand buffers from empty.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// groupImports writes src to b with its import block split into two
// groups, the standard library first, separated by a blank line. Only the
// package clause and the imports are parsed. Within each group the order
// of src is kept (jennifer sorts by path, as gofmt does).
func groupImports(b *bytes.Buffer, src []byte) error {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("generated imports: %w", err)
	}
	var decl *ast.GenDecl
	for _, d := range file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			if decl != nil {
				return fmt.Errorf("generated code has several import declarations")
			}
			decl = gd
		}
	}
	if decl == nil || !decl.Lparen.IsValid() {
		b.Write(src)
		return nil
	}
	tf := fset.File(decl.Pos())
	var std, rest []string
	for _, s := range decl.Specs {
		is := s.(*ast.ImportSpec)
		if is.Doc != nil || is.Comment != nil {
			return fmt.Errorf("generated import %s has a comment", is.Path.Value)
		}
		text := string(src[tf.Offset(is.Pos()):tf.Offset(is.End())])
		path, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return err
		}
		if isStdlib(path) {
			std = append(std, text)
		} else {
			rest = append(rest, text)
		}
	}
	b.Grow(len(src) + 1)
	b.Write(src[:tf.Offset(decl.Lparen)+1])
	b.WriteByte('\n')
	for i, group := range [][]string{std, rest} {
		if i == 1 && len(std) > 0 && len(rest) > 0 {
			b.WriteByte('\n')
		}
		for _, line := range group {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	b.Write(src[tf.Offset(decl.Rparen):])
	return nil
}

// isStdlib reports whether path is a standard library package: its first
// element has no dot (goimports' rule).
func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// gofmt formats a complete Go file as go/format.Source does (the printer
// settings of gofmt), into a buffer sized for the output.
func gofmt(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("generated code does not parse: %w\n%s", err, src)
	}
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/4)
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&out, fset, file); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
