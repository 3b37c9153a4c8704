package refdata_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

const manifestTemplate = `{
  "name": "demo-tiers",
  "version": "1.0.0",
  "files": [{
    "path": "tiers.csv", "format": "csv", "key": "tier",
    "schema": {"type": "object", "required": ["tier", "discount"], "additionalProperties": false,
      "properties": {"tier": {"type": "string"}, "discount": {"type": "number"}}}
  }]
}`

// A publisher seals a tiny bundle (sha256s, row counts, signature) with a
// key made from a fixed seed; a deployment that trusts the public key loads
// and verifies it and reads its typed rows. A file changed after signing is
// refused with a stable code.
func Example() {
	dir, err := os.MkdirTemp("", "bundle")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, refdata.ManifestFile), []byte(manifestTemplate), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "tiers.csv"), []byte("tier,discount\nfree,0\npro,0.1\nenterprise,0.25\n"), 0o644)

	key, err := refdata.GenerateKey(bytes.NewReader(make([]byte, 32)), "example key")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	m, err := refdata.Seal(ctx, dir, key, refdata.SealOptions{PublishedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("sealed", m.Ref(), "signed by", m.SignedBy)

	opts := refdata.Options{TrustedKeys: []*refdata.PublicKey{key.Public()}}
	b, err := refdata.Load(ctx, dir, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verified:", b.Verified(), b.Rows(), "rows")
	for _, row := range b.File("tiers.csv").Rows {
		fmt.Println(" ", row.Key, string(row.Data))
	}

	_ = os.WriteFile(filepath.Join(dir, "tiers.csv"), []byte("tier,discount\nfree,0\npro,0.9\nenterprise,0.25\n"), 0o644)
	_, err = refdata.Load(ctx, dir, opts)
	fmt.Println("tampered:", refdata.CodeOf(err))
	// Output:
	// sealed demo-tiers@1.0.0 signed by 139e3940e64b5491
	// verified: true 3 rows
	//   free {"discount":0,"tier":"free"}
	//   pro {"discount":0.1,"tier":"pro"}
	//   enterprise {"discount":0.25,"tier":"enterprise"}
	// tampered: sha256_mismatch
}
