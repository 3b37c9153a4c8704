package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestActUpload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"me.txt", "a.txt", "b.txt", "data.csv"} {
		files[n] = filepath.Join(dir, n)
		if err := os.WriteFile(files[n], []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, css string
		files     []string
		via       string
		list      string
	}{
		{"button for hidden input", "#avatar-btn", []string{"me.txt"}, "nearest ancestor", "avatar:me.txt"},
		{"input itself", "#avatar", []string{"me.txt"}, "self", "avatar:me.txt"},
		{"label for hidden multiple input", "#docs-label", []string{"a.txt", "b.txt"}, "label", "docs:a.txt,docs:b.txt"},
		{"file chooser", "#far-btn", []string{"data.csv"}, "file chooser", "far:data.csv"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_upload.html")
			var paths []string
			for _, f := range tc.files {
				paths = append(paths, files[f])
			}
			res := actMust(t)(p.Upload(ctx, actEl(t, ctx, p, tc.css), paths, ActOptions{}))
			if res.FileVia != tc.via || !slices.Equal(res.Files, tc.files) || res.FileInput == nil || res.FileInput.Tag != "input" {
				t.Fatalf("evidence via=%q files=%q input=%+v notes=%v", res.FileVia, res.Files, res.FileInput, res.Notes)
			}
			if got := actJS(t, ctx, p, `Array.from(document.querySelectorAll('#files li')).map(l => l.textContent).join(',')`); got != tc.list {
				t.Fatalf("page saw %q", got)
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "act_upload.html")
		_, err := p.Upload(ctx, actEl(t, ctx, p, "#avatar"), []string{filepath.Join(dir, "missing.txt")}, ActOptions{})
		actWantCode(t, err, CodeInvalid)
		_, err = p.Upload(ctx, actEl(t, ctx, p, "#avatar"), []string{files["a.txt"], files["b.txt"]}, ActOptions{})
		actWantCode(t, err, CodeInvalid)
	})
}
