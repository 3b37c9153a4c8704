package spec

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/invalid/*.err from the current output")

// validFiles returns the valid specs, which the invalid cases are loaded
// with so that they can call them.
func validFiles(t testing.TB) []File {
	t.Helper()
	paths, err := filepath.Glob("testdata/valid/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var files []File
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Data: data})
	}
	return files
}

// TestInvalidSpecs loads each testdata/invalid/NAME.yaml together with the
// valid specs (so calls can reach them) and compares every diagnostic with
// NAME.err. Run with -update to rewrite the .err files.
func TestInvalidSpecs(t *testing.T) {
	valid := validFiles(t)
	paths, err := filepath.Glob("testdata/invalid/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 20 {
		t.Fatalf("only %d invalid cases", len(paths))
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, diags := LoadFiles(append(append([]File(nil), valid...), File{Path: path, Data: data}), testOptions)
			if len(diags) == 0 {
				t.Fatalf("%s: no diagnostics", path)
			}
			got := diags.Error() + "\n"
			errPath := strings.TrimSuffix(path, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(errPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(errPath)
			if err != nil {
				t.Fatalf("%v (run go test ./spec -run TestInvalidSpecs -update)", err)
			}
			if got != string(want) {
				t.Errorf("diagnostics differ for %s\n--- got\n%s--- want\n%s", path, got, want)
			}
			for _, d := range diags {
				if strings.Contains(d.Msg, "internal error") {
					t.Errorf("internal error: %s", d)
				}
			}
			// ParseFile alone must not panic and must report (a subset of) problems.
			ParseFile(path, data)
		})
	}
}
