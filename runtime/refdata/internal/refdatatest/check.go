package refdatatest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

// Options trusts the public halves of keys (Key(1) when none) and reads the
// time from [Clock].
func Options(keys ...*refdata.PrivateKey) refdata.Options {
	if len(keys) == 0 {
		keys = []*refdata.PrivateKey{Key(1)}
	}
	var pubs []*refdata.PublicKey
	for _, k := range keys {
		pubs = append(pubs, k.Public())
	}
	return refdata.Options{TrustedKeys: pubs, Now: Clock}
}

// WantCode fails t unless err carries code.
func WantCode(t testing.TB, err error, code refdata.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got := refdata.CodeOf(err); got != code {
		t.Fatalf("code %q, want %q: %v", got, code, err)
	}
}

// Resign recomputes every sha256 of dir's manifest, applies edit (if not nil)
// and signs it again with k at [Now], bypassing Seal's row checks: how tests
// make a bundle whose signature is good but whose rows are not.
func Resign(t testing.TB, dir string, k *refdata.PrivateKey, edit func(m *refdata.Manifest)) {
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
		h := sha256.Sum256(b)
		m.Files[i].SHA256 = hex.EncodeToString(h[:])
	}
	if edit != nil {
		edit(m)
	}
	if err := refdata.Sign(m, k, Now); err != nil {
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
