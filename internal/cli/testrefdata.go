package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/macrokit/macrokit-go/runtime/refdata/cache"
)

// testBundles is the reference data `test` reads: the project's own bundles
// synced into a cache of its own, removed on Close.
type testBundles struct {
	*cache.Store
	dir string
}

// Close closes the cache and removes it.
func (s *testBundles) Close() error {
	err := s.Store.Close()
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}

// syncTestBundles syncs every bundle of the project's bundle directory
// ($MACROKIT_REFDATA_BUNDLES, else macrokit.yaml refdata.bundles:
// <dir>/<name>/manifest.json) into a fresh cache in a temporary directory,
// verified against the trusted keys as `refdata sync` verifies, and
// reports each on log. Tests then read exactly the bundles the checkout
// carries: a fresh clone passes without a manual sync, a bundle synced by
// hand cannot make a test pass, and the operator's cache is not touched.
// It returns nil when no bundle directory is configured.
func syncTestBundles(ctx context.Context, cfg *Config, log io.Writer) (*testBundles, error) {
	dir := cfg.getenv(EnvRefdataBundles)
	if dir == "" {
		return nil, nil
	}
	names, err := bundleDirs(dir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", cfg.Name+"-test-refdata-")
	if err != nil {
		return nil, err
	}
	o, err := RefdataOptions(cfg, nil, filepath.Join(tmp, "refdata.db"))
	if err == nil {
		var st *cache.Store
		if st, err = cache.Open(ctx, o); err == nil {
			s := &testBundles{Store: st, dir: tmp}
			if err = syncAll(ctx, st, dir, names, log); err == nil {
				return s, nil
			}
			s.Close()
			return nil, err
		}
	}
	os.RemoveAll(tmp)
	return nil, fmt.Errorf("refdata bundles %s: %w", dir, err)
}

func syncAll(ctx context.Context, st *cache.Store, dir string, names []string, log io.Writer) error {
	for _, n := range names {
		res, err := st.Sync(ctx, n, filepath.Join(dir, n), cache.SyncOptions{})
		if err != nil {
			return fmt.Errorf("refdata bundle %s: %w", filepath.Join(dir, n), err)
		}
		fmt.Fprintf(log, "refdata: %s@%s from %s (%d rows) for the tests\n", res.Name, res.Version, filepath.Join(dir, n), res.Rows)
	}
	return nil
}

// bundleDirs lists the subdirectories of dir holding a manifest.json.
func bundleDirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("refdata bundles: %w", err)
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "manifest.json")); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}
