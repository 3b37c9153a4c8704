package refdata_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/internal/refdatatest"
)

// signedManifest returns a valid signed manifest as a generic object.
func signedManifest(t testing.TB) map[string]any {
	t.Helper()
	dir := refdatatest.Write(t, refdatatest.Tiers("1.0.0"))
	b, err := os.ReadFile(filepath.Join(dir, refdata.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseManifestErrors(t *testing.T) {
	file := func(edit func(f map[string]any)) func(m map[string]any) {
		return func(m map[string]any) { edit(m["files"].([]any)[0].(map[string]any)) }
	}
	cases := []struct {
		name string
		edit func(m map[string]any)
		raw  string
		err  string
	}{
		{name: "valid", edit: func(map[string]any) {}},
		{name: "not JSON", raw: "{", err: "EOF"},
		{name: "array", raw: "[]", err: "not a JSON object"},
		{name: "duplicate key", raw: `{"name":"a","name":"b"}`, err: "duplicate key"},
		{name: "unknown field", edit: func(m map[string]any) { m["Name"] = "x" }, err: "unknown field(s) Name"},
		{name: "unknown file field", edit: file(func(f map[string]any) { f["sha512"] = "x" }), err: "files[0].sha512"},
		{name: "bad name", edit: func(m map[string]any) { m["name"] = "Tiers!" }, err: "name"},
		{name: "bad version", edit: func(m map[string]any) { m["version"] = "1.0" }, err: "MAJOR.MINOR.PATCH"},
		{name: "build metadata", edit: func(m map[string]any) { m["version"] = "1.0.0+b1" }, err: "build metadata"},
		{name: "no published_at", edit: func(m map[string]any) { delete(m, "published_at") }, err: "published_at"},
		{name: "bad published_at", edit: func(m map[string]any) { m["published_at"] = "yesterday" }, err: "yesterday"},
		{name: "expires before published", edit: func(m map[string]any) { m["expires_at"] = "2000-01-01T00:00:00Z" }, err: "not after"},
		{name: "no files", edit: func(m map[string]any) { m["files"] = []any{} }, err: "files is empty"},
		{name: "escaping path", edit: file(func(f map[string]any) { f["path"] = "../etc/passwd" }), err: "clean relative"},
		{name: "absolute path", edit: file(func(f map[string]any) { f["path"] = "/etc/passwd" }), err: "clean relative"},
		{name: "unclean path", edit: file(func(f map[string]any) { f["path"] = "a//b.csv" }), err: "clean relative"},
		{name: "backslash", edit: file(func(f map[string]any) { f["path"] = `a\b.csv` }), err: "backslash"},
		{name: "manifest as file", edit: file(func(f map[string]any) { f["path"] = "manifest.json" }), err: "is the manifest"},
		{name: "listed twice", edit: func(m map[string]any) {
			fs := m["files"].([]any)
			m["files"] = append(fs, fs[0])
		}, err: "listed twice"},
		{name: "bad sha256", edit: file(func(f map[string]any) { f["sha256"] = "ABC" }), err: "sha256"},
		{name: "bad format", edit: file(func(f map[string]any) { f["format"] = "xlsx" }), err: "json or csv"},
		{name: "negative rows", edit: file(func(f map[string]any) { f["rows"] = -1 }), err: "negative"},
		{name: "no schema", edit: file(func(f map[string]any) { delete(f, "schema") }), err: "schema: missing"},
		{name: "schema not object", edit: file(func(f map[string]any) { f["schema"] = []any{} }), err: "not an object"},
		{name: "schema for arrays", edit: file(func(f map[string]any) { f["schema"] = map[string]any{"type": "array"} }), err: `"object"`},
		{name: "remote ref", edit: file(func(f map[string]any) {
			f["schema"] = map[string]any{"properties": map[string]any{"x": map[string]any{"$ref": "https://example.com/s.json"}}}
		}), err: "only local references"},
		{name: "key not a property", edit: file(func(f map[string]any) { f["key"] = "nope" }), err: `key "nope"`},
		{name: "bad signed_by", edit: func(m map[string]any) { m["signed_by"] = "someone" }, err: "signed_by"},
		{name: "no signature", edit: func(m map[string]any) { delete(m, "signature") }, err: "signature"},
		{name: "short signature", edit: func(m map[string]any) { m["signature"] = "AAAA" }, err: "signature"},
		{name: "too large", raw: `{"name":"` + strings.Repeat("a", refdata.MaxManifestBytes) + `"}`, err: "larger than"},
	}
	base := signedManifest(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.raw)
			if tc.edit != nil {
				var m map[string]any
				b, _ := json.Marshal(base)
				_ = json.Unmarshal(b, &m)
				tc.edit(m)
				data, _ = json.Marshal(m)
			}
			_, err := refdata.ParseManifest(data)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			refdatatest.WantCode(t, err, refdata.CodeManifestInvalid)
			if !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}

func TestSignatureCoversCanonicalForm(t *testing.T) {
	k := refdatatest.Key(1)
	trusted := []*refdata.PublicKey{k.Public()}
	base := signedManifest(t)
	b, _ := json.Marshal(base) // keys re-ordered, whitespace gone
	m, err := refdata.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := refdata.VerifySignature(m, trusted); err != nil {
		t.Fatalf("re-encoded manifest: %v", err)
	}
	cases := []struct {
		name string
		edit func(m map[string]any)
		code refdata.Code
	}{
		{"version bumped", func(m map[string]any) { m["version"] = "9.0.0" }, refdata.CodeSignatureInvalid},
		{"row count changed", func(m map[string]any) { m["files"].([]any)[0].(map[string]any)["rows"] = 2 }, refdata.CodeSignatureInvalid},
		{"description added", func(m map[string]any) { m["description"] = "x" }, refdata.CodeSignatureInvalid},
		{"expiry extended", func(m map[string]any) { m["expires_at"] = "2099-01-01T00:00:00Z" }, refdata.CodeSignatureInvalid},
		{"other key id", func(m map[string]any) { m["signed_by"] = refdatatest.Key(2).ID }, refdata.CodeUntrustedKey},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c map[string]any
			_ = json.Unmarshal(b, &c)
			tc.edit(c)
			cb, _ := json.Marshal(c)
			m, err := refdata.ParseManifest(cb)
			if err != nil {
				t.Fatal(err)
			}
			refdatatest.WantCode(t, refdata.VerifySignature(m, trusted), tc.code)
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	dir := refdatatest.Write(f, refdatatest.Tiers("1.0.0"))
	seed, err := os.ReadFile(filepath.Join(dir, refdata.ManifestFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"name":"a","version":"1.0.0","files":[]}`))
	f.Add([]byte(`{"a":{"a":[1,2,{"b":null}]}}`))
	f.Add([]byte(`{"name":"x","name":"y"}`))
	trusted := []*refdata.PublicKey{refdatatest.Key(1).Public()}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := refdata.ParseManifest(data)
		if err != nil {
			if refdata.CodeOf(err) != refdata.CodeManifestInvalid {
				t.Fatalf("error without manifest_invalid: %v", err)
			}
			return
		}
		// A manifest that parses has a canonical form that parses to the
		// same canonical form, and verification never panics.
		c, err := m.Canonical()
		if err != nil {
			t.Fatalf("canonical: %v", err)
		}
		m2, err := refdata.ParseManifest(c)
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, c)
		}
		c2, _ := m2.Canonical()
		if string(c) != string(c2) {
			t.Fatalf("canonical form not stable:\n%s\n%s", c, c2)
		}
		_ = refdata.VerifySignature(m, trusted)
	})
}
