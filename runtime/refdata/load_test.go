package refdata_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/internal/refdatatest"
)

func TestLoadLimitsAndArchives(t *testing.T) {
	ctx := context.Background()
	dir := refdatatest.Write(t, refdatatest.Tiers("1.0.0"))
	tmp := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := map[string][]byte{}
	for _, n := range []string{refdata.ManifestFile, "tiers.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	mkTar := func(entries ...tarEntry) []byte {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, e := range entries {
			h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: e.typ, Size: int64(len(e.body)), Linkname: e.link}
			if e.typ == 0 {
				h.Typeflag = tar.TypeReg
			}
			if h.Typeflag != tar.TypeReg {
				h.Size = 0
			}
			if err := tw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			if h.Typeflag == tar.TypeReg {
				_, _ = tw.Write(e.body)
			}
		}
		tw.Close()
		gz.Close()
		return buf.Bytes()
	}
	cases := []struct {
		name string
		src  string
		max  int64
		code refdata.Code
	}{
		{name: "rooted in one directory", src: write("prefixed.tar.gz", mkTar(
			tarEntry{name: "tiers-1.0.0/", typ: tar.TypeDir},
			tarEntry{name: "tiers-1.0.0/manifest.json", body: files[refdata.ManifestFile]},
			tarEntry{name: "tiers-1.0.0/tiers.csv", body: files["tiers.csv"]}))},
		{name: "dot-slash names", src: write("dot.tar.gz", mkTar(
			tarEntry{name: "./manifest.json", body: files[refdata.ManifestFile]},
			tarEntry{name: "./tiers.csv", body: files["tiers.csv"]}))},
		{name: "symlink entry", code: refdata.CodeArchiveInvalid, src: write("link.tar.gz", mkTar(
			tarEntry{name: "manifest.json", body: files[refdata.ManifestFile]},
			tarEntry{name: "tiers.csv", typ: tar.TypeSymlink, link: "/etc/passwd"}))},
		{name: "escaping entry", code: refdata.CodeArchiveInvalid, src: write("escape.tar.gz", mkTar(
			tarEntry{name: "../manifest.json", body: files[refdata.ManifestFile]}))},
		{name: "duplicate entry", code: refdata.CodeArchiveInvalid, src: write("dup.tar.gz", mkTar(
			tarEntry{name: "manifest.json", body: files[refdata.ManifestFile]},
			tarEntry{name: "tiers.csv", body: files["tiers.csv"]},
			tarEntry{name: "tiers.csv", body: []byte("x")}))},
		{name: "file missing from archive", code: refdata.CodeFileMissing, src: write("missing.tar.gz", mkTar(
			tarEntry{name: "manifest.json", body: files[refdata.ManifestFile]}))},
		{name: "archive over the limit", code: refdata.CodeTooLarge, max: 100, src: write("big.tar.gz", refdatatest.Pack(t, dir))},
		{name: "unpacked over the limit", code: refdata.CodeTooLarge, max: 900, src: write("bomb.tar.gz", mkTar(
			tarEntry{name: "manifest.json", body: files[refdata.ManifestFile]},
			tarEntry{name: "tiers.csv", body: bytes.Repeat([]byte("a"), 5000)}))},
		{name: "directory file over the limit", code: refdata.CodeTooLarge, max: 10, src: dir},
		{name: "no such path", code: refdata.CodeFetchFailed, src: filepath.Join(tmp, "nope")},
		{name: "empty file", code: refdata.CodeTruncated, src: write("empty.tar.gz", nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := refdatatest.Options()
			o.MaxBytes = tc.max
			b, err := refdata.Load(ctx, tc.src, o)
			if tc.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if b.Rows() != 3 {
					t.Fatalf("%d rows", b.Rows())
				}
				return
			}
			refdatatest.WantCode(t, err, tc.code)
		})
	}
}

type tarEntry struct {
	name string
	typ  byte
	body []byte
	link string
}

func TestLoadHonoursContext(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := refdata.Load(ctx, srv.URL+"/slow.tar.gz", refdatatest.Options())
	refdatatest.WantCode(t, err, refdata.CodeFetchFailed)
	if ctx.Err() == nil {
		t.Fatal("returned before the deadline")
	}
}

func TestNoTrustedKeys(t *testing.T) {
	dir := refdatatest.Write(t, refdatatest.Tiers("1.0.0"))
	_, err := refdata.Load(context.Background(), dir, refdata.Options{Now: refdatatest.Clock})
	refdatatest.WantCode(t, err, refdata.CodeUntrustedKey)
	if !strings.Contains(err.Error(), "no trusted keys") {
		t.Fatal(err)
	}
}

// TestDemoBundle keeps the committed demo bundle verifiable with the
// committed demo key.
func TestDemoBundle(t *testing.T) {
	pub, err := refdata.ReadPublicKeyFile("../../refdata/demo-key/demo.pub")
	if err != nil {
		t.Fatal(err)
	}
	b, err := refdata.Load(context.Background(), "../../refdata/demo-tiers", refdata.Options{TrustedKeys: []*refdata.PublicKey{pub}})
	if err != nil {
		t.Fatal(err)
	}
	f := b.File("tiers.csv")
	if b.Manifest.Name != "demo-tiers" || f == nil || f.Entry.Key != "tier" || len(f.Rows) != 3 {
		t.Fatalf("demo bundle changed: %s", b.Manifest.Ref())
	}
	if props := f.Entry.Properties(); props["monthly_price"][0] != "number" || props["seats"][0] != "integer" {
		t.Fatalf("properties %v", props)
	}
}
