package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		fill    func(io.Writer) error
		wantErr error
		want    string
	}{
		{"a failed fill keeps the old file", func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return boom }, boom, "old"},
		{"a good fill replaces it", func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }, nil, "new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Write(path, 0o644, tc.fill); !errors.Is(err, tc.wantErr) {
				t.Fatalf("Write = %v, want %v", err, tc.wantErr)
			}
			b, _ := os.ReadFile(path)
			if string(b) != tc.want {
				t.Fatalf("file = %q, want %q", b, tc.want)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("temporary files left: %v", ents)
			}
		})
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", st.Mode().Perm())
	}
}
