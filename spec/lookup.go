package spec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

// bundles reads the manifests of the project's reference-data bundles
// (<dir>/<name>/manifest.json) once each, for the checks of lookup steps.
// This is a type check, not a trust decision: signatures are not verified.
type bundles struct {
	dir   string
	cache map[string]*bundleInfo
}

// bundleInfo is one bundle directory as found: absent (m and err nil), a
// manifest, or the reason it could not be read.
type bundleInfo struct {
	path string
	m    *refdata.Manifest
	err  error
}

func newBundles(dir string) *bundles {
	if dir == "" {
		return nil
	}
	return &bundles{dir: dir, cache: map[string]*bundleInfo{}}
}

// get returns what the project holds for bundle name.
func (b *bundles) get(name string) *bundleInfo {
	if b == nil {
		return &bundleInfo{}
	}
	if bi := b.cache[name]; bi != nil {
		return bi
	}
	bi := &bundleInfo{path: filepath.ToSlash(filepath.Join(b.dir, name, refdata.ManifestFile))}
	data, err := os.ReadFile(filepath.Join(b.dir, name, refdata.ManifestFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		bi.err = err
	default:
		// A bundle being edited may not be signed yet: the template form
		// accepts a manifest without hashes, row counts and signature.
		bi.m, bi.err = refdata.ParseManifestTemplate(data)
	}
	b.cache[name] = bi
	return bi
}

// lookup checks a lookup step: the key's references, and, when the bundle
// is in the project, that the file exists and has a key column; it types
// the variable from the file's row schema.
func (c *checker) lookup(l *Lookup, sc *scope, path string) []pending {
	if l == nil {
		return nil
	}
	c.text(l.Key, sc, join(path, "key"), "a lookup key")
	l.Type = ObjectOf()
	if c.env != nil && l.Bundle != "" && l.File != "" {
		name, _, _ := strings.Cut(l.Bundle, "@")
		bi := c.env.bundles.get(name)
		switch {
		case bi.err != nil:
			c.errf(l.BundlePos, join(path, "bundle"), "bundle %s: cannot read %s: %v", name, bi.path, bi.err)
		case bi.m != nil:
			f := bi.m.File(l.File)
			if f == nil {
				var paths []string
				for _, e := range bi.m.Files {
					paths = append(paths, e.Path)
				}
				hint := didYouMean(l.File, paths)
				if hint == "" {
					hint = " (files: " + strings.Join(paths, ", ") + ")"
				}
				c.errf(l.FilePos, join(path, "file"), "bundle %s has no file %q%s", name, l.File, hint)
				break
			}
			if f.Key == "" {
				c.errf(l.FilePos, join(path, "file"), "file %q of bundle %s has no key column: it cannot be looked up by key (give it a key in the manifest)", l.File, name)
				break
			}
			l.KeyColumn = f.Key
			l.Type = rowType(f)
		}
	}
	if l.Into == "" {
		return nil
	}
	return []pending{{l.Into, l.IntoPos, join(path, "into"), l.Type, l.Key != nil && l.Key.Secret}}
}

// rowType is the type of one row of f: an object with a property per
// column of its schema (sorted by name), typed by the column's JSON type
// (any for a union or no type), required as the schema says.
func rowType(f *refdata.FileEntry) *Type {
	props := f.Properties()
	required := map[string]bool{}
	if v, err := refdata.DecodeStrict(f.Schema); err == nil {
		if obj, ok := v.(map[string]any); ok {
			if list, ok := obj["required"].([]any); ok {
				for _, r := range list {
					if s, ok := r.(string); ok {
						required[s] = true
					}
				}
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		if propRE.MatchString(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	t := ObjectOf()
	goNames := map[string]bool{}
	for _, n := range names {
		if goNames[GoName(n)] {
			continue // two columns with one Go name: the first one gets the field
		}
		goNames[GoName(n)] = true
		t.Props = append(t.Props, &Property{Name: n, GoName: GoName(n), Type: columnType(props[n]), Required: required[n]})
	}
	return t
}

// columnType maps a column's JSON types to a Type.
func columnType(types []string) *Type {
	var kinds []string
	for _, k := range types {
		if k != "null" || len(types) == 1 {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != len(types) { // nullable: absent or null at run time
		return Scalar(KindAny)
	}
	if len(kinds) == 2 && ((kinds[0] == "integer" && kinds[1] == "number") || (kinds[0] == "number" && kinds[1] == "integer")) {
		return Scalar(KindNumber)
	}
	if len(kinds) != 1 {
		return Scalar(KindAny)
	}
	switch kinds[0] {
	case "string":
		return Scalar(KindString)
	case "integer":
		return Scalar(KindInteger)
	case "number":
		return Scalar(KindNumber)
	case "boolean":
		return Scalar(KindBoolean)
	case "object":
		return ObjectOf()
	case "array":
		return ArrayOf(Scalar(KindAny))
	}
	return Scalar(KindAny)
}
