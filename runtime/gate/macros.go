package gate

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/internal/atomicfile"

	"gopkg.in/yaml.v3"
)

// Macros are the specs already written, read just enough to avoid their
// names and intents and to tell which workflows they already do. (The gate
// does not import the spec compiler: it reads names, intents and the page
// and HTTP steps' kinds, targets and URL paths.)
type Macros struct {
	names   map[string]string // name -> file
	intents map[string]bool   // lower-cased, spaces collapsed
	specs   []macroSteps
	// Warnings are spec files that could not be read; they are skipped.
	Warnings []string
}

type macroSteps struct {
	name  string
	steps []stepPat
}

// stepPat is a macro step reduced to what a workflow step is compared on.
type stepPat struct {
	kind   string
	target map[string]any
	path   []string // URL path segments; "*" matches any
	method string
	key    string
}

// Names lists the macro names, sorted.
func (m *Macros) Names() []string {
	if m == nil {
		return nil
	}
	out := make([]string, 0, len(m.names))
	for n := range m.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsSuggested reports whether a spec file was written by the gate (its
// first lines carry HeaderLine), so the gate may overwrite it.
func IsSuggested(data []byte) bool {
	head := data[:min(len(data), 512)]
	return bytes.HasPrefix(head, []byte(HeaderLine)) || bytes.Contains(head, []byte("\n"+HeaderLine))
}

// ReadMacros reads the *.yaml and *.yml specs under dirs (recursively,
// skipping directories whose name starts with "."). Suggested specs (see
// IsSuggested) under replace are left out: the gate rewrites them. A
// missing or unreadable directory is an *InputError; a spec that does not
// parse is a warning.
func ReadMacros(dirs []string, replace string) (*Macros, error) {
	m := &Macros{names: map[string]string{}, intents: map[string]bool{}}
	seen := map[string]bool{}
	replaceAbs := ""
	if replace != "" {
		replaceAbs, _ = filepath.Abs(replace)
	}
	for _, dir := range dirs {
		var files []string
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != dir && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, &InputError{Path: dir, Err: err}
		}
		sort.Strings(files)
		for _, f := range files {
			abs, _ := filepath.Abs(f)
			if seen[abs] {
				continue
			}
			seen[abs] = true
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, &InputError{Path: f, Err: err}
			}
			if replaceAbs != "" && filepath.Dir(abs) == replaceAbs && IsSuggested(data) {
				continue
			}
			if err := m.add(f, data); err != nil {
				m.Warnings = append(m.Warnings, fmt.Sprintf("%s: %v (skipped)", f, err))
			}
		}
	}
	return m, nil
}

type specDoc struct {
	Name   string           `yaml:"name"`
	Intent string           `yaml:"intent"`
	Steps  []map[string]any `yaml:"steps"`
}

func (m *Macros) add(file string, data []byte) error {
	var d specDoc
	if err := yaml.Unmarshal(data, &d); err != nil {
		return err
	}
	if d.Name == "" {
		return fmt.Errorf("no name")
	}
	m.names[d.Name] = file
	if in := normIntent(d.Intent); in != "" {
		m.intents[in] = true
	}
	ms := macroSteps{name: d.Name}
	for _, st := range d.Steps {
		if p, ok := patOf(st); ok {
			ms.steps = append(ms.steps, p)
		}
	}
	m.specs = append(m.specs, ms)
	return nil
}

func normIntent(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// patOf reduces a spec step to a pattern; steps that a raw call never
// produces (wait, set, assert, call, ...) give none.
func patOf(st map[string]any) (stepPat, bool) {
	for _, kind := range []string{"goto", "click", "check", "uncheck", "fill", "select", "press", "extract", "http"} {
		v, ok := st[kind]
		if !ok {
			continue
		}
		p := stepPat{kind: kind}
		switch kind {
		case "goto":
			s, _ := v.(string)
			p.path = patPath(s)
		case "click", "check", "uncheck":
			p.target, _ = v.(map[string]any)
		case "press":
			switch x := v.(type) {
			case string:
				p.key = x
			case map[string]any:
				p.key, _ = x["key"].(string)
				p.target, _ = x["target"].(map[string]any)
			}
		case "http":
			x, _ := v.(map[string]any)
			p.method, _ = x["method"].(string)
			if p.method == "" {
				p.method = "GET"
			}
			s, _ := x["url"].(string)
			p.path = patPath(s)
		default:
			x, _ := v.(map[string]any)
			p.target, _ = x["target"].(map[string]any)
		}
		return p, true
	}
	return stepPat{}, false
}

var leadingTemplate = regexp.MustCompile(`^\{\{[^}]*\}\}`)

// patPath is a spec URL's path, templates as "*".
func patPath(s string) []string {
	s = leadingTemplate.ReplaceAllString(s, "")
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		if j := strings.IndexByte(s, '/'); j >= 0 {
			s = s[j:]
		} else {
			s = ""
		}
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	var out []string
	for _, seg := range strings.Split(strings.TrimPrefix(s, "/"), "/") {
		if strings.Contains(seg, "{{") {
			seg = "*"
		}
		out = append(out, seg)
	}
	return out
}

// covering names a macro whose steps include the group's steps in order
// (each step the same kind, on a matching target and URL path), or "".
func (m *Macros) covering(g *group) string {
	if m == nil {
		return ""
	}
	w := g.tmpl
	for _, ms := range m.specs {
		j := 0
		for i := 0; i < len(ms.steps) && j < len(w.steps); i++ {
			if patMatches(&ms.steps[i], &w.steps[j], w) {
				j++
			}
		}
		if j == len(w.steps) {
			return ms.name
		}
	}
	return ""
}

func patMatches(p *stepPat, st *stepTmpl, w *workflow) bool {
	if p.kind != st.kind {
		return false
	}
	switch st.kind {
	case "goto", "http":
		if st.kind == "http" && !strings.EqualFold(p.method, st.method) {
			return false
		}
		var segs []string
		for _, s := range st.url.segs {
			if s.slot >= 0 {
				segs = append(segs, w.values[s.slot])
			} else {
				segs = append(segs, s.lit)
			}
		}
		if len(segs) == 0 {
			segs = []string{""}
		}
		if len(segs) != len(p.path) {
			return false
		}
		for i, s := range segs {
			if p.path[i] != "*" && p.path[i] != s {
				return false
			}
		}
		return true
	case "press":
		if p.key != st.key {
			return false
		}
		if st.target == nil || p.target == nil {
			return st.target == nil && p.target == nil
		}
	}
	return targetMatches(p.target, st.target)
}

// targetMatches compares locators: a spec text with a template matches any
// value, a /regex/ matches by expression, anything else must be equal.
func targetMatches(pt map[string]any, t *pageTarget) bool {
	if pt == nil || t == nil {
		return false
	}
	fields := map[string]string{"role": t.Role, "name": t.Name, "label": t.Label, "text": t.Text,
		"placeholder": t.Placeholder, "testid": t.TestID, "css": t.CSS}
	for k, v := range fields {
		pv, has := pt[k]
		if !has {
			if v != "" {
				return false
			}
			continue
		}
		s := fmt.Sprint(pv)
		switch {
		case v == "":
			return false
		case strings.Contains(s, "{{"):
		case len(s) >= 2 && strings.HasPrefix(s, "/") && strings.HasSuffix(s, "/"):
			re, err := regexp.Compile(s[1 : len(s)-1])
			if err != nil || !re.MatchString(v) {
				return false
			}
		case s != v:
			return false
		}
	}
	return true
}

// ConflictError is a file WriteSpecs would overwrite that the gate did not
// write.
type ConflictError struct{ Path string }

// Error says which file.
func (e *ConflictError) Error() string {
	return e.Path + ": exists and was not written by macrokit gate; not overwriting"
}

// WriteSpecs writes each suggested spec of r to dir/<name>.yaml (creating
// dir), atomically, and records the paths in r. It overwrites only files
// that carry HeaderLine, and rewrites none whose bytes did not change.
func WriteSpecs(dir string, r *Report) error {
	var todo []int
	for i, g := range r.Groups {
		if g.YAML != "" {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, i := range todo {
		g := &r.Groups[i]
		path := filepath.Join(dir, g.File)
		old, err := os.ReadFile(path)
		switch {
		case err == nil && !IsSuggested(old):
			return &ConflictError{Path: path}
		case err == nil && string(old) == g.YAML:
			g.Path = path
			continue
		case err != nil && !os.IsNotExist(err):
			return err
		}
		if err := atomicfile.WriteBytes(path, 0o644, []byte(g.YAML)); err != nil {
			return err
		}
		g.Path = path
	}
	return nil
}
