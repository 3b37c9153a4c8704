package cache

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

// testNow is the fixed clock of the tests.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return testNow }

// testKey is a deterministic key: seed is repeated to 32 bytes.
func testKey(seed byte) *refdata.PrivateKey {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	return &refdata.PrivateKey{ID: refdata.KeyID(priv.Public().(ed25519.PublicKey)), Key: priv, Comment: fmt.Sprintf("test key %d", seed)}
}

const tiersSchema = `{
  "type": "object",
  "required": ["tier", "monthly_price", "seats"],
  "additionalProperties": false,
  "properties": {
    "tier": {"type": "string", "enum": ["free", "pro", "enterprise"]},
    "monthly_price": {"type": "number", "minimum": 0},
    "seats": {"type": "integer", "minimum": 1},
    "annual": {"type": "boolean"}
  }
}`

const tiersCSV = "tier,monthly_price,seats,annual\nfree,0,1,false\npro,29.5,5,true\nenterprise,499,100,true\n"

// bundleSpec describes a test bundle before sealing.
type bundleSpec struct {
	name, version string
	files         []fileSpec
	expires       *time.Time
	published     time.Time
	key           *refdata.PrivateKey
}

type fileSpec struct {
	path, format, key, schema, body string
}

func tiersBundle(version string) bundleSpec {
	return bundleSpec{name: "tiers", version: version, key: testKey(1),
		files: []fileSpec{{path: "tiers.csv", format: "csv", key: "tier", schema: tiersSchema, body: tiersCSV}}}
}

// writeBundle writes and seals a bundle in a new directory and returns it.
func writeBundle(t testing.TB, spec bundleSpec) string {
	t.Helper()
	dir := t.TempDir()
	m := map[string]any{"name": spec.name, "version": spec.version}
	var files []any
	for _, f := range spec.files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
		e := map[string]any{"path": f.path, "format": f.format, "schema": json.RawMessage(f.schema)}
		if f.key != "" {
			e["key"] = f.key
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
	key := spec.key
	if key == nil {
		key = testKey(1)
	}
	if _, err := refdata.Seal(context.Background(), dir, key, refdata.SealOptions{Now: clock, ExpiresAt: spec.expires, PublishedAt: spec.published}); err != nil {
		t.Fatalf("seal: %v", err)
	}
	return dir
}

// packBundle writes dir as a .tar.gz and returns its bytes.
func packBundle(t testing.TB, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := refdata.Pack(dir, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testOptions(t testing.TB, keys ...*refdata.PrivateKey) Options {
	t.Helper()
	if len(keys) == 0 {
		keys = []*refdata.PrivateKey{testKey(1)}
	}
	var pubs []*refdata.PublicKey
	for _, k := range keys {
		pubs = append(pubs, k.Public())
	}
	return Options{Options: refdata.Options{TrustedKeys: pubs, Now: clock}, Path: filepath.Join(t.TempDir(), "cache", "refdata.db")}
}

func wantCode(t testing.TB, err error, code refdata.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got := refdata.CodeOf(err); got != code {
		t.Fatalf("code %q, want %q: %v", got, code, err)
	}
}

func editFile(t testing.TB, path string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bigCSV is an n-row file: id (key), name, score, version tag.
func bigCSV(n int, tag string) string {
	var b strings.Builder
	b.Grow(n * 40)
	b.WriteString("id,name,score,tag\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%06d,name %d,%d.5,%s\n", i, i, i%1000, tag)
	}
	return b.String()
}

const bigSchema = `{
  "type": "object",
  "required": ["id", "name", "score", "tag"],
  "additionalProperties": false,
  "properties": {
    "id": {"type": "string"},
    "name": {"type": "string", "maxLength": 64},
    "score": {"type": "number", "minimum": 0},
    "tag": {"type": "string"}
  }
}`

func bigBundle(version string, n int) bundleSpec {
	return bundleSpec{name: "big", version: version, key: testKey(1),
		files: []fileSpec{{path: "big.csv", format: "csv", key: "id", schema: bigSchema, body: bigCSV(n, version)}}}
}

// resign recomputes every sha256 of dir's manifest, applies edit and signs
// it again with k, bypassing Seal's row checks: how the tests make a bundle
// whose signature is good but whose rows are not.
func resign(t testing.TB, dir string, k *refdata.PrivateKey, edit func(m *refdata.Manifest)) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, refdata.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := refdata.ParseManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(m.Files[i].Path)))
		if err != nil {
			t.Fatal(err)
		}
		m.Files[i].SHA256 = sha256Hex(b)
	}
	if edit != nil {
		edit(m)
	}
	if err := refdata.Sign(m, k, testNow); err != nil {
		t.Fatal(err)
	}
	out, err := m.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, refdata.ManifestFile), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func openStore(t testing.TB, o Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustSync(t testing.TB, s *Store, name, src string, o SyncOptions) *SyncResult {
	t.Helper()
	res, err := s.Sync(context.Background(), name, src, o)
	if err != nil {
		t.Fatalf("sync %s: %v", src, err)
	}
	return res
}

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

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
