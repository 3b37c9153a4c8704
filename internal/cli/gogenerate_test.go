package cli

import (
	"debug/elf"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// renameSpec renames the macro old (macros.d/<old>.yaml, name: old) to
// nw, file and name, as a user renaming a macro does.
func renameSpec(t *testing.T, macros, old, nw string) {
	t.Helper()
	src := filepath.Join(macros, old+".yaml")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(data), "\nname: "+old+"\n", "\nname: "+nw+"\n", 1)
	if renamed == string(data) {
		t.Fatalf("%s has no line name: %s", src, old)
	}
	if err := os.WriteFile(filepath.Join(macros, nw+".yaml"), []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
}

// wantFiles checks which of names exist in dir.
func wantFiles(t *testing.T, dir string, present, absent []string) {
	t.Helper()
	for _, n := range present {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	for _, n := range absent {
		if _, err := os.Stat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", n, err)
		}
	}
}

// assertStatic fails unless path is an ELF executable with no dynamic
// loader (PT_INTERP) and no shared library it needs (DT_NEEDED): what ldd
// calls "not a dynamic executable".
func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has an interpreter (PT_INTERP): dynamically linked", path)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", path, libs)
	}
}

// TestGenerateRemoveAndRenameInRepo: on a copy of this checkout, renaming
// and then removing a spec leaves `go generate ./...` working (it failed
// with "open generated/update_settings.go: no such file or directory" while
// the directive sat in generated/).
func TestGenerateRemoveAndRenameInRepo(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the checkout and runs go generate")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "macrokit-go")
	copyCheckout(t, repoRoot(t), dir)
	run := offlineCmd(t, dir)
	generate := func(step string) {
		t.Helper()
		if out, errOut, err := run("go", "generate", "./..."); err != nil {
			t.Fatalf("%s: go generate ./...: %v\n%s%s", step, err, out, errOut)
		}
	}
	gen := filepath.Join(dir, "generated")
	renameSpec(t, filepath.Join(dir, "macros.d"), "update_settings", "change_settings")
	generate("rename")
	wantFiles(t, gen, []string{"change_settings.go", "doc.go", "primitives.go"}, []string{"update_settings.go"})
	if err := os.Remove(filepath.Join(dir, "macros.d", "change_settings.yaml")); err != nil {
		t.Fatal(err)
	}
	generate("remove")
	wantFiles(t, gen, []string{"doc.go", "primitives.go", "add_customer.go"}, []string{"change_settings.go", "update_settings.go"})
}

// copyCheckout copies the source tree at root to dir, without .git or
// other dot directories, node_modules and build outputs.
func copyCheckout(t *testing.T, root, dir string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || rel == "bin") {
				return fs.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
