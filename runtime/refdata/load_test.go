package refdata

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// bundleServer serves archives by path; a route may cut the body short.
type bundleServer struct {
	mu     sync.Mutex
	routes map[string]route
}

type route struct {
	body []byte
	// cut > 0 sends only the first cut bytes: with lie, under a
	// Content-Length that promises all of them; without, as the whole body.
	cut  int
	lie  bool
	code int
}

func newBundleServer(t testing.TB) (*bundleServer, *httptest.Server) {
	bs := &bundleServer{routes: map[string]route{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bs.mu.Lock()
		rt, ok := bs.routes[r.URL.Path]
		bs.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if rt.code != 0 {
			w.WriteHeader(rt.code)
			return
		}
		body := rt.body
		if rt.cut > 0 {
			if rt.lie {
				w.Header().Set("Content-Length", strconvItoa(len(body)))
			}
			body = body[:rt.cut]
		}
		w.Header().Set("Content-Type", "application/gzip")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return bs, srv
}

func (bs *bundleServer) set(path string, rt route) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.routes[path] = rt
}

func strconvItoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestSignedBundleRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := writeBundle(t, tiersBundle("1.2.0"))
	archive := filepath.Join(t.TempDir(), "tiers-1.2.0.tar.gz")
	if err := os.WriteFile(archive, packBundle(t, dir), 0o644); err != nil {
		t.Fatal(err)
	}
	bs, srv := newBundleServer(t)
	bs.set("/tiers.tar.gz", route{body: packBundle(t, dir)})

	for _, tc := range []struct{ name, src string }{{"directory", dir}, {"archive file", archive}, {"URL", srv.URL + "/tiers.tar.gz"}} {
		src := tc.src
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(t)
			b, err := Load(ctx, src, o)
			if err != nil {
				t.Fatal(err)
			}
			if b.Manifest.Ref() != "tiers@1.2.0" || b.Rows() != 3 || b.File("tiers.csv").Rows[1].Key != "pro" {
				t.Fatalf("bundle %s, %d rows", b.Manifest.Ref(), b.Rows())
			}
			s := openStore(t, o)
			res := mustSync(t, s, "tiers", src, SyncOptions{})
			if res.Version != "1.2.0" || res.Rows != 3 || res.Previous != "" || res.Unchanged {
				t.Fatalf("sync result %+v", res)
			}
			row, err := s.Lookup(ctx, "tiers", "tiers.csv", "pro")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"tier": "pro", "monthly_price": json.Number("29.5"), "seats": json.Number("5"), "annual": true}
			if got, _ := json.Marshal(row); string(got) != mustJSON(want) {
				t.Fatalf("row %s, want %s", got, mustJSON(want))
			}
			// The same row through the context, as generated code reads it,
			// and by explicit version.
			row2, err := Lookup(NewContext(ctx, s), "tiers@1.2.0", "tiers.csv", "pro")
			if err != nil || row2["seats"] != json.Number("5") {
				t.Fatalf("context lookup: %v %v", row2, err)
			}
			// A second sync of the same artifact changes nothing.
			if res := mustSync(t, s, "tiers", src, SyncOptions{}); !res.Unchanged || res.Previous != "1.2.0" {
				t.Fatalf("re-sync %+v", res)
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFailuresKeepPreviousVersion syncs a broken 2.0.0 over a good 1.0.0:
// each failure has its code and 1.0.0 stays current and readable.
func TestFailuresKeepPreviousVersion(t *testing.T) {
	ctx := context.Background()
	bs, srv := newBundleServer(t)
	expiredAt := testNow.Add(-time.Hour)
	cases := []struct {
		name string
		// make returns the source to sync (a directory or URL).
		make func(t *testing.T) string
		code Code
		row  int
		col  string
	}{
		{name: "tampered row", code: CodeSHA256Mismatch, make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			editFile(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "pro,29.5", "pro,0.01", 1) })
			return dir
		}},
		{name: "wrong key", code: CodeUntrustedKey, make: func(t *testing.T) string {
			spec := tiersBundle("2.0.0")
			spec.key = testKey(9)
			return writeBundle(t, spec)
		}},
		{name: "edited manifest", code: CodeSignatureInvalid, make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			editFile(t, filepath.Join(dir, ManifestFile), func(s string) string {
				return strings.Replace(s, `"version": "2.0.0"`, `"version": "2.0.1"`, 1)
			})
			return dir
		}},
		{name: "re-hashed tampered row", code: CodeSignatureInvalid, make: func(t *testing.T) string {
			// The attacker edits the row and the manifest's sha256 but
			// cannot re-sign.
			dir := writeBundle(t, tiersBundle("2.0.0"))
			editFile(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "pro,29.5", "pro,0.01", 1) })
			raw, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
			m, _ := ParseManifest(raw)
			data, _ := os.ReadFile(filepath.Join(dir, "tiers.csv"))
			editFile(t, filepath.Join(dir, ManifestFile), func(s string) string { return strings.Replace(s, m.Files[0].SHA256, sha256Hex(data), 1) })
			return dir
		}},
		{name: "expired", code: CodeExpired, make: func(t *testing.T) string {
			spec := tiersBundle("2.0.0")
			spec.published = testNow.Add(-48 * time.Hour)
			spec.expires = &expiredAt
			return writeBundle(t, spec)
		}},
		{name: "row breaks schema", code: CodeSchemaInvalid, row: 2, col: "seats", make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			editFile(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "pro,29.5,5", "pro,29.5,0", 1) })
			resign(t, dir, testKey(1), nil)
			return dir
		}},
		{name: "cell breaks typing", code: CodeSchemaInvalid, row: 3, col: "monthly_price", make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			editFile(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "enterprise,499", "enterprise,call us", 1) })
			resign(t, dir, testKey(1), nil)
			return dir
		}},
		{name: "schema does not compile", code: CodeManifestInvalid, make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			resign(t, dir, testKey(1), func(m *Manifest) {
				m.Files[0].Schema = json.RawMessage(`{"type":"object","properties":{"tier":{"type":"string"},"seats":{"type":"count"}}}`)
			})
			return dir
		}},
		{name: "row count lies", code: CodeManifestInvalid, make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			resign(t, dir, testKey(1), func(m *Manifest) { m.Files[0].Rows = 2 })
			return dir
		}},
		{name: "file missing", code: CodeFileMissing, make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			if err := os.Remove(filepath.Join(dir, "tiers.csv")); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{name: "manifest missing", code: CodeFileMissing, make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{name: "manifest invalid", code: CodeManifestInvalid, make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			editFile(t, filepath.Join(dir, ManifestFile), func(s string) string { return s[:len(s)/2] })
			return dir
		}},
		{name: "truncated download (short body)", code: CodeTruncated, make: func(t *testing.T) string {
			body := packBundle(t, writeBundle(t, tiersBundle("2.0.0")))
			bs.set("/short.tar.gz", route{body: body, cut: len(body) / 2, lie: true})
			return srv.URL + "/short.tar.gz"
		}},
		{name: "truncated download (cut archive)", code: CodeTruncated, make: func(t *testing.T) string {
			body := packBundle(t, writeBundle(t, tiersBundle("2.0.0")))
			bs.set("/cut.tar.gz", route{body: body, cut: len(body) - 5})
			return srv.URL + "/cut.tar.gz"
		}},
		{name: "tampered download", code: CodeSHA256Mismatch, make: func(t *testing.T) string {
			dir := writeBundle(t, tiersBundle("2.0.0"))
			editFile(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "499", "999", 1) })
			bs.set("/tampered.tar.gz", route{body: packBundle(t, dir)})
			return srv.URL + "/tampered.tar.gz"
		}},
		{name: "not an archive", code: CodeArchiveInvalid, make: func(t *testing.T) string {
			bs.set("/html", route{body: []byte("<html>oops</html>")})
			return srv.URL + "/html"
		}},
		{name: "HTTP 404", code: CodeFetchFailed, make: func(t *testing.T) string { return srv.URL + "/nope.tar.gz" }},
		{name: "HTTP 500", code: CodeFetchFailed, make: func(t *testing.T) string {
			bs.set("/500", route{code: 500})
			return srv.URL + "/500"
		}},
		{name: "other bundle", code: CodeNameMismatch, make: func(t *testing.T) string {
			spec := tiersBundle("2.0.0")
			spec.name = "prices"
			return writeBundle(t, spec)
		}},
		{name: "downgrade", code: CodeDowngrade, make: func(t *testing.T) string { return writeBundle(t, tiersBundle("0.9.0")) }},
	}
	good := writeBundle(t, tiersBundle("1.0.0"))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(t)
			s := openStore(t, o)
			mustSync(t, s, "tiers", good, SyncOptions{})
			src := tc.make(t)
			_, err := s.Sync(ctx, "tiers", src, SyncOptions{})
			wantCode(t, err, tc.code)
			if tc.row != 0 || tc.col != "" {
				e := err.(*Error)
				if e.Row != tc.row || e.Column != tc.col || e.File != "tiers.csv" {
					t.Fatalf("located at %s row %d column %q, want tiers.csv row %d column %q", e.File, e.Row, e.Column, tc.row, tc.col)
				}
			}
			// The previous version is still current and served.
			row, err := s.Lookup(ctx, "tiers", "tiers.csv", "pro")
			if err != nil || row["monthly_price"] != json.Number("29.5") {
				t.Fatalf("previous version not served: %v %v", row, err)
			}
			list, err := s.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 || list[0].Version != "1.0.0" || !list[0].Current {
				t.Fatalf("cache holds %+v", list)
			}
			// Load refuses it with the same code.
			if tc.code != CodeNameMismatch && tc.code != CodeDowngrade {
				_, err := Load(ctx, src, o)
				wantCode(t, err, tc.code)
			}
		})
	}
}

func TestLoadLimitsAndArchives(t *testing.T) {
	ctx := context.Background()
	dir := writeBundle(t, tiersBundle("1.0.0"))
	tmp := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := map[string][]byte{}
	for _, n := range []string{ManifestFile, "tiers.csv"} {
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
		code Code
	}{
		{name: "rooted in one directory", src: write("prefixed.tar.gz", mkTar(
			tarEntry{name: "tiers-1.0.0/", typ: tar.TypeDir},
			tarEntry{name: "tiers-1.0.0/manifest.json", body: files[ManifestFile]},
			tarEntry{name: "tiers-1.0.0/tiers.csv", body: files["tiers.csv"]}))},
		{name: "dot-slash names", src: write("dot.tar.gz", mkTar(
			tarEntry{name: "./manifest.json", body: files[ManifestFile]},
			tarEntry{name: "./tiers.csv", body: files["tiers.csv"]}))},
		{name: "symlink entry", code: CodeArchiveInvalid, src: write("link.tar.gz", mkTar(
			tarEntry{name: "manifest.json", body: files[ManifestFile]},
			tarEntry{name: "tiers.csv", typ: tar.TypeSymlink, link: "/etc/passwd"}))},
		{name: "escaping entry", code: CodeArchiveInvalid, src: write("escape.tar.gz", mkTar(
			tarEntry{name: "../manifest.json", body: files[ManifestFile]}))},
		{name: "duplicate entry", code: CodeArchiveInvalid, src: write("dup.tar.gz", mkTar(
			tarEntry{name: "manifest.json", body: files[ManifestFile]},
			tarEntry{name: "tiers.csv", body: files["tiers.csv"]},
			tarEntry{name: "tiers.csv", body: []byte("x")}))},
		{name: "file missing from archive", code: CodeFileMissing, src: write("missing.tar.gz", mkTar(
			tarEntry{name: "manifest.json", body: files[ManifestFile]}))},
		{name: "archive over the limit", code: CodeTooLarge, max: 100, src: write("big.tar.gz", packBundle(t, dir))},
		{name: "unpacked over the limit", code: CodeTooLarge, max: 900, src: write("bomb.tar.gz", mkTar(
			tarEntry{name: "manifest.json", body: files[ManifestFile]},
			tarEntry{name: "tiers.csv", body: bytes.Repeat([]byte("a"), 5000)}))},
		{name: "directory file over the limit", code: CodeTooLarge, max: 10, src: dir},
		{name: "no such path", code: CodeFetchFailed, src: filepath.Join(tmp, "nope")},
		{name: "empty file", code: CodeTruncated, src: write("empty.tar.gz", nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(t)
			o.MaxBytes = tc.max
			b, err := Load(ctx, tc.src, o)
			if tc.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if b.Rows() != 3 {
					t.Fatalf("%d rows", b.Rows())
				}
				return
			}
			wantCode(t, err, tc.code)
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
	_, err := Load(ctx, srv.URL+"/slow.tar.gz", testOptions(t))
	wantCode(t, err, CodeFetchFailed)
	if ctx.Err() == nil {
		t.Fatal("returned before the deadline")
	}
}

func TestNoTrustedKeys(t *testing.T) {
	dir := writeBundle(t, tiersBundle("1.0.0"))
	_, err := Load(context.Background(), dir, Options{Now: clock})
	wantCode(t, err, CodeUntrustedKey)
	if !strings.Contains(err.Error(), "no trusted keys") {
		t.Fatal(err)
	}
}

// TestDemoBundle keeps the committed demo bundle verifiable with the
// committed demo key.
func TestDemoBundle(t *testing.T) {
	pub, err := ReadPublicKeyFile("../../refdata/demo-key/demo.pub")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(context.Background(), "../../refdata/demo-tiers", Options{TrustedKeys: []*PublicKey{pub}})
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
