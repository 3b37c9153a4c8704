package cache

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/internal/refdatatest"
)

// BenchmarkSync100k syncs a signed 100,000-row CSV bundle from a
// directory into a fresh cache: verify (signature, sha256, schema of every
// row) and install (one transaction). Sub-benchmarks split the two.
func BenchmarkSync100k(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	src := refdatatest.Write(b, refdatatest.BigBundle("1.0.0", n))
	o := testOptions(b)
	b.Run("sync", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			oi := o
			oi.Path = filepath.Join(b.TempDir(), "refdata.db")
			s, err := Open(ctx, oi)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := s.Sync(ctx, "big", src, SyncOptions{}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("verify", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := refdata.Load(ctx, src, o.Options); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("install", func(b *testing.B) {
		bundle, err := refdata.Load(ctx, src, o.Options)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			oi := o
			oi.Path = filepath.Join(b.TempDir(), "refdata.db")
			s, err := Open(ctx, oi)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := s.Install(ctx, bundle, SyncOptions{}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkLookup reads random keys of the 100,000-row bundle through
// Store.Lookup (one indexed query, decoded to a map), serially and from
// parallel goroutines.
func BenchmarkLookup(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	o := testOptions(b)
	s := openStore(b, o)
	mustSync(b, s, "big", refdatatest.Write(b, refdatatest.BigBundle("1.0.0", n)), SyncOptions{})
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%06d", (i*7919)%n)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := s.Lookup(ctx, "big", "big.csv", keys[i%len(keys)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := s.LookupRaw(ctx, "big", "big.csv", keys[i%len(keys)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				if _, err := s.Lookup(ctx, "big", "big.csv", keys[i%len(keys)]); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
}
