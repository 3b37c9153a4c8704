package spec

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Signature describes a primitive: a Go function of the deployment that
// specs call with `primitive: {name, args, into}`.
type Signature struct {
	// Params are the arguments; Required ones must be given.
	Params []*Property
	// Result is the type of the returned value, or nil when it returns
	// nothing (then `into` is an error).
	Result *Type
	// Doc describes the primitive (for docs and editors).
	Doc string
	// Page is set when the primitive takes the call's page
	// (*runtime.Page): a macro that calls it needs a browser, like one
	// with page steps (Spec.UsesPage).
	Page bool
}

// Options configures LoadDir and LoadFiles.
type Options struct {
	// Primitives are the primitives specs may call, by name. Steps naming
	// any other primitive are errors.
	Primitives map[string]Signature
	// NoPrimitives is what the diagnostic for an unknown primitive adds, in
	// parentheses, when Primitives is empty (default: "no primitives are
	// registered"); a command names where primitives come from.
	NoPrimitives string
	// Refdata is the project's reference-data directory: each bundle a
	// lookup step names is looked for as <Refdata>/<bundle>/manifest.json,
	// and when it is there the step's file must be in it and its variable
	// takes the fields of the file's row schema. When it is not there (or
	// Refdata is empty) the variable is a free-form object. LoadDir
	// defaults it to the directory "refdata" next to the macros directory.
	Refdata string
	// MCP gives the tools of the MCP servers the deployment configures,
	// for mcp steps (nil: none are; an mcp step is then an error).
	MCP MCPSource
}

// Set is a checked set of specs.
type Set struct {
	// Specs are the specs that could be read, sorted by name (then file).
	Specs  []*Spec
	byName map[string]*Spec
}

// Lookup returns the spec called name, or nil.
func (s *Set) Lookup(name string) *Spec {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// File is a spec file's path and content, for LoadFiles.
type File struct {
	Path string // as it appears in diagnostics
	Data []byte // the YAML source
}

// LoadDir reads every *.yaml and *.yml file under dir (recursively, in
// sorted order, skipping directories whose name starts with "."), checks
// each spec, then checks the set: names are unique, `call` targets exist,
// their arguments fit the callee's params and its risk does not exceed the
// caller's, calls have no cycle, and `primitive` steps name registered
// primitives with well-typed arguments. Diagnostics name files as
// filepath.Join(dir, relative path). All problems are reported, sorted.
func LoadDir(dir string, opts Options) (*Set, Diagnostics) {
	var files []File
	var diags Diagnostics
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			diags = append(diags, Diagnostic{File: path, Msg: ioMessage(err)})
			if d != nil && d.IsDir() && path != dir {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, rerr := readSpec(path)
		if rerr != nil {
			diags = append(diags, Diagnostic{File: path, Msg: ioMessage(rerr)})
			return nil
		}
		files = append(files, File{Path: path, Data: data})
		return nil
	})
	if err != nil {
		diags = append(diags, Diagnostic{File: dir, Msg: ioMessage(err)})
	}
	if opts.Refdata == "" {
		opts.Refdata = filepath.Join(filepath.Dir(filepath.Clean(dir)), "refdata")
	}
	set, more := LoadFiles(files, opts)
	return set, append(diags, more...).normalize()
}

func ioMessage(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return fmt.Sprintf("cannot %s: %v", pe.Op, pe.Err)
	}
	return err.Error()
}

// LoadFiles is LoadDir over files already in memory, in the given order
// (which decides which of two specs with the same name is the duplicate).
func LoadFiles(files []File, opts Options) (*Set, Diagnostics) {
	type parsed struct {
		spec *Spec
		r    *reporter
	}
	var all []parsed
	set := &Set{byName: map[string]*Spec{}}
	for _, f := range files {
		s, r := parseOnly(f.Path, f.Data)
		all = append(all, parsed{s, r})
		if s == nil || s.Name == "" {
			continue
		}
		if first := set.byName[s.Name]; first != nil {
			r.at(s.NamePos, "name", "macro name %q is already used by %s", s.Name, first.NamePos)
			continue
		}
		set.byName[s.Name] = s
	}
	e := &env{lookup: set.Lookup, prims: opts.Primitives, noPrims: opts.NoPrimitives, bundles: newBundles(opts.Refdata), mcp: opts.MCP}
	for n := range set.byName {
		e.names = append(e.names, n)
	}
	sort.Strings(e.names)
	if e.prims == nil {
		e.prims = map[string]Signature{}
	}
	var diags Diagnostics
	for _, p := range all {
		if p.spec != nil {
			safely(p.r, p.spec.File, func() { newChecker(p.spec, p.r, e).check() })
			set.Specs = append(set.Specs, p.spec)
		}
	}
	for _, p := range all {
		diags = append(diags, p.r.diags...)
	}
	diags = append(diags, cycles(set)...)
	sort.SliceStable(set.Specs, func(i, j int) bool {
		a, b := set.Specs[i], set.Specs[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.File < b.File
	})
	return set, diags.normalize()
}

// cycles reports each call cycle once, at the call that leaves the cycle's
// alphabetically first macro.
func cycles(set *Set) Diagnostics {
	var diags Diagnostics
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	reported := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		color[name] = grey
		stack = append(stack, name)
		s := set.byName[name]
		for _, site := range s.callSites {
			callee := site.callee
			if set.byName[callee] == nil {
				continue
			}
			switch color[callee] {
			case white:
				visit(callee)
			case grey:
				// stack from callee to the end is the cycle
				i := len(stack) - 1
				for stack[i] != callee {
					i--
				}
				cyc := append([]string(nil), stack[i:]...)
				// rotate so the smallest name comes first
				min := 0
				for j, n := range cyc {
					if n < cyc[min] {
						min = j
					}
				}
				cyc = append(cyc[min:], cyc[:min]...)
				key := strings.Join(cyc, ">")
				if reported[key] {
					continue
				}
				reported[key] = true
				from := set.byName[cyc[0]]
				next := cyc[(1)%len(cyc)]
				for _, fs := range from.callSites {
					if fs.callee == next {
						diags = append(diags, Diagnostic{File: fs.pos.File, Line: fs.pos.Line, Col: fs.pos.Col, Path: fs.path,
							Msg: fmt.Sprintf("call cycle: %s -> %s", strings.Join(cyc, " -> "), cyc[0])})
						break
					}
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[name] = black
	}
	var names []string
	for n := range set.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if color[n] == white {
			visit(n)
		}
	}
	return diags
}
