package cache_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/cache"
)

// A signed bundle synced into the cache, then a row looked up by key, the
// way a lookup step reads it. Syncing the same artifact again changes
// nothing.
func Example() {
	dir, err := os.MkdirTemp("", "refdata")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	bundle := filepath.Join(dir, "demo-tiers")
	_ = os.Mkdir(bundle, 0o755)
	_ = os.WriteFile(filepath.Join(bundle, refdata.ManifestFile), []byte(`{"name": "demo-tiers", "version": "1.0.0",
  "files": [{"path": "tiers.csv", "format": "csv", "key": "tier",
    "schema": {"type": "object", "properties": {"tier": {"type": "string"}, "discount": {"type": "number"}}}}]}`), 0o644)
	_ = os.WriteFile(filepath.Join(bundle, "tiers.csv"), []byte("tier,discount\nfree,0\npro,0.1\n"), 0o644)
	key, err := refdata.GenerateKey(bytes.NewReader(make([]byte, 32)), "example key")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	if _, err := refdata.Seal(ctx, bundle, key, refdata.SealOptions{PublishedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		fmt.Println(err)
		return
	}

	store, err := cache.Open(ctx, cache.Options{
		Options: refdata.Options{TrustedKeys: []*refdata.PublicKey{key.Public()}},
		Path:    filepath.Join(dir, "cache.db"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	for range 2 {
		res, err := store.Sync(ctx, "demo-tiers", bundle, cache.SyncOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("synced %s@%s: %d file(s), %d row(s), unchanged=%v\n", res.Name, res.Version, res.Files, res.Rows, res.Unchanged)
	}

	row, ref, err := store.LookupRef(ctx, "demo-tiers", "tiers.csv", "pro")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ref, row["tier"], row["discount"])
	_, err = store.Lookup(ctx, "demo-tiers", "tiers.csv", "gold")
	fmt.Println(refdata.CodeOf(err))
	// Output:
	// synced demo-tiers@1.0.0: 1 file(s), 2 row(s), unchanged=false
	// synced demo-tiers@1.0.0: 1 file(s), 2 row(s), unchanged=true
	// demo-tiers@1.0.0 pro 0.1
	// not_found
}
