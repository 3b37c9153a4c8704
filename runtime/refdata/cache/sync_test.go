package cache

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/internal/refdatatest"
)

func TestSignedBundleRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := refdatatest.Write(t, refdatatest.Tiers("1.2.0"))
	archive := filepath.Join(t.TempDir(), "tiers-1.2.0.tar.gz")
	if err := os.WriteFile(archive, refdatatest.Pack(t, dir), 0o644); err != nil {
		t.Fatal(err)
	}
	bs, srv := newBundleServer(t)
	bs.set("/tiers.tar.gz", route{body: refdatatest.Pack(t, dir)})

	for _, tc := range []struct{ name, src string }{{"directory", dir}, {"archive file", archive}, {"URL", srv.URL + "/tiers.tar.gz"}} {
		src := tc.src
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(t)
			b, err := refdata.Load(ctx, src, o.Options)
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
			row2, err := refdata.Lookup(refdata.NewContext(ctx, s), "tiers@1.2.0", "tiers.csv", "pro")
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
	expiredAt := refdatatest.Now.Add(-time.Hour)
	cases := []struct {
		name string
		// make returns the source to sync (a directory or URL).
		make func(t *testing.T) string
		code refdata.Code
		row  int
		col  string
	}{
		{name: "tampered row", code: refdata.CodeSHA256Mismatch, make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Edit(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "pro,29.5", "pro,0.01", 1) })
			return dir
		}},
		{name: "wrong key", code: refdata.CodeUntrustedKey, make: func(t *testing.T) string {
			spec := refdatatest.Tiers("2.0.0")
			spec.Key = refdatatest.Key(9)
			return refdatatest.Write(t, spec)
		}},
		{name: "edited manifest", code: refdata.CodeSignatureInvalid, make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Edit(t, filepath.Join(dir, refdata.ManifestFile), func(s string) string {
				return strings.Replace(s, `"version": "2.0.0"`, `"version": "2.0.1"`, 1)
			})
			return dir
		}},
		{name: "re-hashed tampered row", code: refdata.CodeSignatureInvalid, make: func(t *testing.T) string {
			// The attacker edits the row and the manifest's sha256 but
			// cannot re-sign.
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Edit(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "pro,29.5", "pro,0.01", 1) })
			raw, _ := os.ReadFile(filepath.Join(dir, refdata.ManifestFile))
			m, _ := refdata.ParseManifest(raw)
			data, _ := os.ReadFile(filepath.Join(dir, "tiers.csv"))
			refdatatest.Edit(t, filepath.Join(dir, refdata.ManifestFile), func(s string) string { return strings.Replace(s, m.Files[0].SHA256, sha256Hex(data), 1) })
			return dir
		}},
		{name: "expired", code: refdata.CodeExpired, make: func(t *testing.T) string {
			spec := refdatatest.Tiers("2.0.0")
			spec.Published = refdatatest.Now.Add(-48 * time.Hour)
			spec.Expires = &expiredAt
			return refdatatest.Write(t, spec)
		}},
		{name: "row breaks schema", code: refdata.CodeSchemaInvalid, row: 2, col: "seats", make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Edit(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "pro,29.5,5", "pro,29.5,0", 1) })
			refdatatest.Resign(t, dir, refdatatest.Key(1), nil)
			return dir
		}},
		{name: "cell breaks typing", code: refdata.CodeSchemaInvalid, row: 3, col: "monthly_price", make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Edit(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "enterprise,499", "enterprise,call us", 1) })
			refdatatest.Resign(t, dir, refdatatest.Key(1), nil)
			return dir
		}},
		{name: "schema does not compile", code: refdata.CodeManifestInvalid, make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Resign(t, dir, refdatatest.Key(1), func(m *refdata.Manifest) {
				m.Files[0].Schema = json.RawMessage(`{"type":"object","properties":{"tier":{"type":"string"},"seats":{"type":"count"}}}`)
			})
			return dir
		}},
		{name: "row count lies", code: refdata.CodeManifestInvalid, make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Resign(t, dir, refdatatest.Key(1), func(m *refdata.Manifest) { m.Files[0].Rows = 2 })
			return dir
		}},
		{name: "file missing", code: refdata.CodeFileMissing, make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			if err := os.Remove(filepath.Join(dir, "tiers.csv")); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{name: "manifest missing", code: refdata.CodeFileMissing, make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			if err := os.Remove(filepath.Join(dir, refdata.ManifestFile)); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{name: "manifest invalid", code: refdata.CodeManifestInvalid, make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Edit(t, filepath.Join(dir, refdata.ManifestFile), func(s string) string { return s[:len(s)/2] })
			return dir
		}},
		{name: "truncated download (short body)", code: refdata.CodeTruncated, make: func(t *testing.T) string {
			body := refdatatest.Pack(t, refdatatest.Write(t, refdatatest.Tiers("2.0.0")))
			bs.set("/short.tar.gz", route{body: body, cut: len(body) / 2, lie: true})
			return srv.URL + "/short.tar.gz"
		}},
		{name: "truncated download (cut archive)", code: refdata.CodeTruncated, make: func(t *testing.T) string {
			body := refdatatest.Pack(t, refdatatest.Write(t, refdatatest.Tiers("2.0.0")))
			bs.set("/cut.tar.gz", route{body: body, cut: len(body) - 5})
			return srv.URL + "/cut.tar.gz"
		}},
		{name: "tampered download", code: refdata.CodeSHA256Mismatch, make: func(t *testing.T) string {
			dir := refdatatest.Write(t, refdatatest.Tiers("2.0.0"))
			refdatatest.Edit(t, filepath.Join(dir, "tiers.csv"), func(s string) string { return strings.Replace(s, "499", "999", 1) })
			bs.set("/tampered.tar.gz", route{body: refdatatest.Pack(t, dir)})
			return srv.URL + "/tampered.tar.gz"
		}},
		{name: "not an archive", code: refdata.CodeArchiveInvalid, make: func(t *testing.T) string {
			bs.set("/html", route{body: []byte("<html>oops</html>")})
			return srv.URL + "/html"
		}},
		{name: "HTTP 404", code: refdata.CodeFetchFailed, make: func(t *testing.T) string { return srv.URL + "/nope.tar.gz" }},
		{name: "HTTP 500", code: refdata.CodeFetchFailed, make: func(t *testing.T) string {
			bs.set("/500", route{code: 500})
			return srv.URL + "/500"
		}},
		{name: "other bundle", code: refdata.CodeNameMismatch, make: func(t *testing.T) string {
			spec := refdatatest.Tiers("2.0.0")
			spec.Name = "prices"
			return refdatatest.Write(t, spec)
		}},
		{name: "downgrade", code: refdata.CodeDowngrade, make: func(t *testing.T) string { return refdatatest.Write(t, refdatatest.Tiers("0.9.0")) }},
	}
	good := refdatatest.Write(t, refdatatest.Tiers("1.0.0"))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(t)
			s := openStore(t, o)
			mustSync(t, s, "tiers", good, SyncOptions{})
			src := tc.make(t)
			_, err := s.Sync(ctx, "tiers", src, SyncOptions{})
			refdatatest.WantCode(t, err, tc.code)
			if tc.row != 0 || tc.col != "" {
				e := err.(*refdata.Error)
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
			if tc.code != refdata.CodeNameMismatch && tc.code != refdata.CodeDowngrade {
				_, err := refdata.Load(ctx, src, o.Options)
				refdatatest.WantCode(t, err, tc.code)
			}
		})
	}
}
