package refdatatest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

// Bundle describes a test bundle before sealing.
type Bundle struct {
	Name, Version string
	Files         []File
	// Expires and Published go to [refdata.SealOptions]; zero leaves them unset.
	Expires   *time.Time
	Published time.Time
	// Key signs the bundle; nil means Key(1).
	Key *refdata.PrivateKey
}

// File is one data file of a [Bundle] with its manifest entry.
type File struct {
	Path, Format, Key, Schema, Body string
}

// Write writes spec into a new temporary directory, seals it at [Now] and
// returns the directory.
func Write(t testing.TB, spec Bundle) string {
	t.Helper()
	dir := t.TempDir()
	m := map[string]any{"name": spec.Name, "version": spec.Version}
	var files []any
	for _, f := range spec.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.Body), 0o644); err != nil {
			t.Fatal(err)
		}
		e := map[string]any{"path": f.Path, "format": f.Format, "schema": json.RawMessage(f.Schema)}
		if f.Key != "" {
			e["key"] = f.Key
		}
		files = append(files, e)
	}
	m["files"] = files
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, refdata.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	key := spec.Key
	if key == nil {
		key = Key(1)
	}
	if _, err := refdata.Seal(context.Background(), dir, key, refdata.SealOptions{Now: Clock, ExpiresAt: spec.Expires, PublishedAt: spec.Published}); err != nil {
		t.Fatalf("seal: %v", err)
	}
	return dir
}

// Pack archives dir as a .tar.gz and returns its bytes.
func Pack(t testing.TB, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := refdata.Pack(dir, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Edit rewrites the file at path through edit.
func Edit(t testing.TB, path string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}
