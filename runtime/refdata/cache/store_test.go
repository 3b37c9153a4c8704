package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/internal/refdatatest"
)

func TestDowngradesAndPins(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, testOptions(t))
	v := map[string]string{}
	for _, ver := range []string{"1.0.0", "1.1.0", "2.0.0", "3.0.0-rc.1"} {
		v[ver] = refdatatest.Write(t, refdatatest.Tiers(ver))
	}
	current := func() string {
		t.Helper()
		e, _, err := s.Manifest(ctx, "tiers")
		if refdata.CodeOf(err) == refdata.CodeNotFound {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		return e.Version
	}
	steps := []struct {
		name    string
		do      func() error
		code    refdata.Code
		current string
	}{
		{"first sync", func() error { _, err := s.Sync(ctx, "tiers", v["1.1.0"], SyncOptions{}); return err }, "", "1.1.0"},
		{"downgrade refused", func() error { _, err := s.Sync(ctx, "tiers", v["1.0.0"], SyncOptions{}); return err }, refdata.CodeDowngrade, "1.1.0"},
		{"upgrade", func() error { _, err := s.Sync(ctx, "tiers", v["2.0.0"], SyncOptions{}); return err }, "", "2.0.0"},
		{"bad pin range", func() error { _, err := s.Sync(ctx, "tiers", v["1.0.0"], SyncOptions{Pin: "^^1"}); return err }, refdata.CodePinMismatch, "2.0.0"},
		{"pinned downgrade", func() error { _, err := s.Sync(ctx, "tiers", v["1.0.0"], SyncOptions{Pin: "^1"}); return err }, "", "1.0.0"},
		{"outside the pin", func() error { _, err := s.Sync(ctx, "tiers", v["2.0.0"], SyncOptions{}); return err }, refdata.CodePinMismatch, "1.0.0"},
		{"pin picks highest cached match", func() error { _, err := s.Pin(ctx, "tiers", "~1.1"); return err }, "", "1.1.0"},
		{"pin with no cached match", func() error { _, err := s.Pin(ctx, "tiers", "^4"); return err }, "", ""},
		{"pin back", func() error { _, err := s.Pin(ctx, "tiers", ">=1.0.0 <3"); return err }, "", "2.0.0"},
		{"pre-release needs a pin that names it", func() error { _, err := s.Sync(ctx, "tiers", v["3.0.0-rc.1"], SyncOptions{}); return err }, refdata.CodePinMismatch, "2.0.0"},
		{"unpin", func() error { return s.Unpin(ctx, "tiers") }, "", "2.0.0"},
		{"unpinned pre-release upgrade", func() error { _, err := s.Sync(ctx, "tiers", v["3.0.0-rc.1"], SyncOptions{}); return err }, "", "3.0.0-rc.1"},
		{"bad range for pin", func() error { _, err := s.Pin(ctx, "tiers", "1.2.3 - 2"); return err }, refdata.CodePinMismatch, "3.0.0-rc.1"},
	}
	for _, st := range steps {
		err := st.do()
		if st.code == "" && err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if st.code != "" && refdata.CodeOf(err) != st.code {
			t.Fatalf("%s: err %v, want %s", st.name, err, st.code)
		}
		if got := current(); got != st.current {
			t.Fatalf("%s: current %q, want %q", st.name, got, st.current)
		}
	}
	_, err := s.Lookup(ctx, "tiers", "tiers.csv", "pro")
	if err != nil {
		t.Fatal(err)
	}
}

func TestRepublishedVersionIsReplaced(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, testOptions(t))
	mustSync(t, s, "tiers", refdatatest.Write(t, refdatatest.Tiers("1.0.0")), SyncOptions{})
	spec := refdatatest.Tiers("1.0.0")
	spec.Files[0].Body = strings.Replace(refdatatest.TiersCSV, "pro,29.5", "pro,35", 1)
	res := mustSync(t, s, "tiers", refdatatest.Write(t, spec), SyncOptions{})
	if !res.Replaced || res.Unchanged {
		t.Fatalf("%+v", res)
	}
	row, err := s.Lookup(ctx, "tiers", "tiers.csv", "pro")
	if err != nil || row["monthly_price"] != json.Number("35") {
		t.Fatalf("%v %v", row, err)
	}
	if l, _ := s.List(ctx); len(l) != 1 {
		t.Fatalf("%d versions", len(l))
	}
}

func TestReadTimeChecks(t *testing.T) {
	ctx := context.Background()
	now := refdatatest.Now
	o := testOptions(t)
	o.Now = func() time.Time { return now }
	o.TTL = 24 * time.Hour
	s := openStore(t, o)
	spec := refdatatest.Tiers("1.0.0")
	exp := refdatatest.Now.Add(72 * time.Hour)
	spec.Expires = &exp
	src := refdatatest.Write(t, spec)
	mustSync(t, s, "tiers", src, SyncOptions{})
	read := func() error {
		_, err := s.Lookup(ctx, "tiers", "tiers.csv", "free")
		return err
	}
	if err := read(); err != nil {
		t.Fatal(err)
	}
	now = refdatatest.Now.Add(25 * time.Hour)
	refdatatest.WantCode(t, read(), refdata.CodeStale)
	if l, _ := s.List(ctx); !l[0].Stale {
		t.Fatal("list does not show stale")
	}
	mustSync(t, s, "tiers", src, SyncOptions{}) // re-verified: fresh again
	if err := read(); err != nil {
		t.Fatal(err)
	}
	now = refdatatest.Now.Add(72 * time.Hour)
	refdatatest.WantCode(t, read(), refdata.CodeExpired)
	refdatatest.WantCode(t, s.EachRow(ctx, "tiers", "tiers.csv", func(string, json.RawMessage) error { return nil }), refdata.CodeExpired)
	if l, _ := s.List(ctx); !l[0].Expired {
		t.Fatal("list does not show expired")
	}

	// Removing the signer from the trusted keys revokes what it signed;
	// a store with no keys configured serves what was verified at sync.
	now = refdatatest.Now
	revoked := o
	revoked.TrustedKeys = []*refdata.PublicKey{refdatatest.Key(2).Public()}
	s2 := openStore(t, revoked)
	_, err := s2.Lookup(ctx, "tiers", "tiers.csv", "free")
	refdatatest.WantCode(t, err, refdata.CodeUntrustedKey)
	readOnly := o
	readOnly.TrustedKeys = nil
	s3 := openStore(t, readOnly)
	if _, err := s3.Lookup(ctx, "tiers", "tiers.csv", "free"); err != nil {
		t.Fatal(err)
	}
}

func TestLookupNotFound(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, testOptions(t))
	spec := refdatatest.Tiers("1.0.0")
	spec.Files = append(spec.Files, refdatatest.File{Path: "notes/snippets.json", Format: "json", Schema: `{"type":"object"}`, Body: `[{"text":"hi"}]`})
	mustSync(t, s, "tiers", refdatatest.Write(t, spec), SyncOptions{})
	cases := []struct{ bundle, file, key, msg string }{
		{"prices", "tiers.csv", "pro", "no current version"},
		{"tiers@9.9.9", "tiers.csv", "pro", "not cached"},
		{"tiers", "prices.csv", "pro", "no such file"},
		{"tiers", "notes/snippets.json", "1", "no key column"},
		{"tiers", "tiers.csv", "gold", `no row with key "gold"`},
		{"tiers@1.0.0", "tiers.csv", "Pro", `no row with key "Pro"`},
	}
	for _, tc := range cases {
		_, err := s.Lookup(ctx, tc.bundle, tc.file, tc.key)
		refdatatest.WantCode(t, err, refdata.CodeNotFound)
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %s %s: %v, want %q", tc.bundle, tc.file, tc.key, err, tc.msg)
		}
	}
	_, err := refdata.Lookup(ctx, "tiers", "tiers.csv", "pro")
	refdatatest.WantCode(t, err, refdata.CodeNotConfigured)
	var rows []string
	if err := s.EachRow(ctx, "tiers", "notes/snippets.json", func(k string, r json.RawMessage) error {
		rows = append(rows, string(r))
		return nil
	}); err != nil || len(rows) != 1 || rows[0] != `{"text":"hi"}` {
		t.Fatalf("%v %v", rows, err)
	}
}

func TestListShowPrune(t *testing.T) {
	ctx := context.Background()
	now := refdatatest.Now
	o := testOptions(t)
	o.Now = func() time.Time { return now }
	s := openStore(t, o)
	exp := refdatatest.Now.Add(time.Hour)
	for _, ver := range []string{"1.0.0", "1.1.0", "1.2.0", "1.3.0"} {
		spec := refdatatest.Tiers(ver)
		if ver == "1.0.0" {
			spec.Expires = &exp
		}
		mustSync(t, s, "tiers", refdatatest.Write(t, spec), SyncOptions{})
	}
	mustSync(t, s, "big", refdatatest.Write(t, refdatatest.BigBundle("0.1.0", 10)), SyncOptions{Pin: "0.1.x"})
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range list {
		got = append(got, fmt.Sprintf("%s@%s current=%v pin=%s rows=%d", e.Name, e.Version, e.Current, e.Pin, e.Rows))
	}
	want := []string{"big@0.1.0 current=true pin=0.1.x rows=10", "tiers@1.3.0 current=true pin= rows=3", "tiers@1.2.0 current=false pin= rows=3",
		"tiers@1.1.0 current=false pin= rows=3", "tiers@1.0.0 current=false pin= rows=3"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	e, m, err := s.Manifest(ctx, "tiers@1.1.0")
	if err != nil || m.Version != "1.1.0" || e.SignedBy != refdatatest.Key(1).ID || m.File("tiers.csv").Key != "tier" {
		t.Fatalf("%+v %+v %v", e, m, err)
	}
	now = refdatatest.Now.Add(2 * time.Hour) // 1.0.0 has expired
	removed, err := s.Prune(ctx, PruneOptions{Keep: 2})
	if err != nil || strings.Join(removed, ",") != "tiers@1.0.0" {
		t.Fatalf("prune keep 2: %v %v", removed, err)
	}
	removed, err = s.Prune(ctx, PruneOptions{Keep: 1})
	if err != nil || strings.Join(removed, ",") != "tiers@1.1.0" {
		t.Fatalf("prune keep 1: %v %v", removed, err)
	}
	removed, err = s.Prune(ctx, PruneOptions{})
	if err != nil || strings.Join(removed, ",") != "tiers@1.2.0" {
		t.Fatalf("prune keep 0: %v %v", removed, err)
	}
	if _, err := s.Lookup(ctx, "tiers", "tiers.csv", "pro"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM rows`).Scan(&n); err != nil || n != 13 {
		t.Fatalf("%d rows left (want 13: pruned rows cascade): %v", n, err)
	}
}

func TestReopenAndSchemaVersion(t *testing.T) {
	ctx := context.Background()
	o := testOptions(t)
	s, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, s, "tiers", refdatatest.Write(t, refdatatest.Tiers("1.0.0")), SyncOptions{})
	s.Close()
	s = openStore(t, o)
	if _, err := s.Lookup(ctx, "tiers", "tiers.csv", "pro"); err != nil {
		t.Fatal(err)
	}
	var mode string
	var ver int
	if err := s.r.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q %v", mode, err)
	}
	if err := s.r.QueryRow(`PRAGMA user_version`).Scan(&ver); err != nil || ver != len(migrations) {
		t.Fatalf("user_version %d %v", ver, err)
	}
	s.Close()
	db, err := sql.Open("sqlite", o.Path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, o)
	refdatatest.WantCode(t, err, refdata.CodeCache)
	if !strings.Contains(err.Error(), "schema 99") {
		t.Fatal(err)
	}
}

// TestConcurrentReadersDuringSync reads a bundle from many goroutines (and
// a second handle on the file, as another process would) while a new
// version is synced: every read succeeds and sees one whole version, and a
// reader that has seen the new version never sees the old one again.
func TestConcurrentReadersDuringSync(t *testing.T) {
	ctx := context.Background()
	n := 5000
	if testing.Short() {
		n = 1000
	}
	o := testOptions(t)
	s := openStore(t, o)
	other := openStore(t, o)
	mustSync(t, s, "big", refdatatest.Write(t, refdatatest.BigBundle("1.0.0", n)), SyncOptions{})
	v2 := refdatatest.Write(t, refdatatest.BigBundle("2.0.0", n))

	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	counts := make([][2]int, 4)
	for g := range counts {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			st := s
			if g%2 == 1 {
				st = other
			}
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			sawNew := false
			for i := 0; ; i++ {
				select {
				case <-done:
					if i > 0 && sawNew {
						return
					}
				default:
				}
				key := fmt.Sprintf("k%06d", rng.IntN(n))
				row, err := st.Lookup(ctx, "big", "big.csv", key)
				if err != nil {
					errs <- fmt.Errorf("reader %d: %v", g, err)
					return
				}
				switch row["tag"] {
				case "1.0.0":
					if sawNew {
						errs <- fmt.Errorf("reader %d saw 1.0.0 after 2.0.0", g)
						return
					}
					counts[g][0]++
				case "2.0.0":
					sawNew = true
					counts[g][1]++
				default:
					errs <- fmt.Errorf("reader %d: row %v", g, row)
					return
				}
				if row["id"] != key {
					errs <- fmt.Errorf("reader %d: asked %s, got %v", g, key, row["id"])
					return
				}
			}
		}(g)
	}
	res, err := s.Sync(ctx, "big", v2, SyncOptions{})
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if err != nil || res.Version != "2.0.0" {
		t.Fatalf("sync: %v", err)
	}
	old := 0
	for _, c := range counts {
		old += c[0]
	}
	if old == 0 {
		t.Error("no read ran during the sync")
	}
	t.Logf("reads during and after the sync (old, new) per reader: %v", counts)
}

// TestTwoWriters syncs from two handles at once: the second waits for the
// first's lock (busy timeout) and both land.
func TestTwoWriters(t *testing.T) {
	ctx := context.Background()
	o := testOptions(t)
	a, b := openStore(t, o), openStore(t, o)
	srcA := refdatatest.Write(t, refdatatest.BigBundle("1.0.0", 5000))
	srcB := refdatatest.Write(t, refdatatest.Tiers("1.0.0"))
	var wg sync.WaitGroup
	var errA, errB error
	wg.Add(2)
	go func() { defer wg.Done(); _, errA = a.Sync(ctx, "big", srcA, SyncOptions{}) }()
	go func() { defer wg.Done(); _, errB = b.Sync(ctx, "tiers", srcB, SyncOptions{}) }()
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if l, _ := a.List(ctx); len(l) != 2 {
		t.Fatalf("%+v", l)
	}
}

// TestCrashDuringSync kills a process in the middle of syncing 2.0.0 (from
// inside the transaction, after half the rows): 1.0.0 is still current,
// whole and readable, and 2.0.0 left nothing behind.
func TestCrashDuringSync(t *testing.T) {
	if db := os.Getenv("REFDATA_CRASH_DB"); db != "" {
		o := testOptions(t)
		o.Path = db
		s, err := Open(context.Background(), o)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		testHookRowInserted = func(n int) {
			if n == 2500 {
				os.Exit(3) // no rollback, no close: a crash
			}
		}
		_, err = s.Sync(context.Background(), "big", os.Getenv("REFDATA_CRASH_SRC"), SyncOptions{})
		fmt.Fprintln(os.Stderr, "sync finished:", err)
		os.Exit(4)
	}
	ctx := context.Background()
	o := testOptions(t)
	s := openStore(t, o)
	mustSync(t, s, "big", refdatatest.Write(t, refdatatest.BigBundle("1.0.0", 5000)), SyncOptions{})
	s.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringSync$")
	cmd.Env = append(os.Environ(), "REFDATA_CRASH_DB="+o.Path, "REFDATA_CRASH_SRC="+refdatatest.Write(t, refdatatest.BigBundle("2.0.0", 5000)))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("child did not crash mid-sync: %v\n%s", err, out)
	}

	s = openStore(t, o)
	var check string
	if err := s.w.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity %q %v", check, err)
	}
	row, err := s.Lookup(ctx, "big", "big.csv", "k004999")
	if err != nil || row["tag"] != "1.0.0" {
		t.Fatalf("after the crash: %v %v", row, err)
	}
	list, _ := s.List(ctx)
	if len(list) != 1 || list[0].Version != "1.0.0" || list[0].Rows != 5000 {
		t.Fatalf("cache after the crash: %+v", list)
	}
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM rows`).Scan(&n); err != nil || n != 5000 {
		t.Fatalf("%d rows (want 5000) %v", n, err)
	}
	// And the interrupted sync simply runs again.
	mustSync(t, s, "big", refdatatest.Write(t, refdatatest.BigBundle("2.0.0", 5000)), SyncOptions{})
}
