package identity

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const cookieValue = "s3ss10n-c00k13-value-0123456789"

func testKey(t *testing.T) []byte {
	t.Helper()
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	key, err := KeyFromEnv(func(string) string { return k })
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func signedIn() State {
	return State{
		Cookies: []Cookie{{Name: "sid", Value: cookieValue, Domain: "app.example", Path: "/", Expires: -1, HTTPOnly: true, SameSite: "Lax"}},
		Origins: []Origin{{Origin: "https://app.example", LocalStorage: []StorageItem{{Name: "token", Value: "local-storage-token-42"}}}},
	}
}

func save(t *testing.T, s *Store, name string, st State) {
	t.Helper()
	if _, err := s.Update(context.Background(), name, func(r *Record) error { r.State = st; return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestStoreRoundTripAndModes(t *testing.T) {
	for _, sealed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sealed=%v", sealed), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "identities")
			var key []byte
			if sealed {
				key = testKey(t)
			}
			s, err := Open(dir, key)
			if err != nil {
				t.Fatal(err)
			}
			save(t, s, "alice", signedIn())
			rec, err := s.Load("alice")
			if err != nil || len(rec.State.Cookies) != 1 || rec.State.Cookies[0].Value != cookieValue || rec.Rev != 1 {
				t.Fatalf("Load = %+v, %v", rec, err)
			}
			fi, _ := os.Stat(filepath.Join(dir, "alice.json"))
			di, _ := os.Stat(dir)
			if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
				t.Errorf("modes: file %v, dir %v", fi.Mode().Perm(), di.Mode().Perm())
			}
			raw, _ := os.ReadFile(filepath.Join(dir, "alice.json"))
			plain := []string{cookieValue, "local-storage-token-42", "app.example"}
			for _, v := range plain {
				if got := bytes.Contains(raw, []byte(v)); got == sealed {
					t.Errorf("file holds %q: %v (sealed %v)", v, got, sealed)
				}
			}
			// An unchanged update writes nothing.
			if r, _ := s.Update(context.Background(), "alice", func(*Record) error { return nil }); r.Rev != 1 {
				t.Errorf("a no-op update bumped rev to %d", r.Rev)
			}
			m, err := s.Show("alice")
			if err != nil || m.Cookies != 1 || m.Encrypted != sealed || strings.Join(m.Domains, ",") != "app.example" {
				t.Errorf("Show = %+v, %v", m, err)
			}
		})
	}
}

func TestStoreErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ids")
	key := testKey(t)
	sealed, _ := Open(dir, key)
	save(t, sealed, "alice", signedIn())
	other := testKey(t)
	tests := []struct {
		name string
		do   func() error
		code Code
	}{
		{"bad name", func() error { _, err := sealed.Load("../etc"); return err }, CodeBadName},
		{"no key", func() error { s, _ := Open(dir, nil); _, err := s.Load("alice"); return err }, CodeNeedKey},
		{"wrong key", func() error { s, _ := Open(dir, other); _, err := s.Load("alice"); return err }, CodeDecrypt},
		{"renamed to another identity", func() error {
			raw, _ := os.ReadFile(filepath.Join(dir, "alice.json"))
			_ = os.WriteFile(filepath.Join(dir, "mallory.json"), bytes.Replace(raw, []byte(`"name": "alice"`), []byte(`"name": "mallory"`), 1), 0o600)
			_, err := sealed.Load("mallory")
			return err
		}, CodeDecrypt},
		{"open to others", func() error {
			_ = os.WriteFile(filepath.Join(dir, "bob.json"), []byte(`{}`), 0o600)
			_ = os.Chmod(filepath.Join(dir, "bob.json"), 0o644)
			_, err := sealed.Load("bob")
			return err
		}, CodePermissions},
		{"not a state", func() error {
			_ = os.WriteFile(filepath.Join(dir, "carol.json"), []byte(`not json`), 0o600)
			_, err := sealed.Load("carol")
			return err
		}, CodeCorrupt},
		{"bad key", func() error { _, err := KeyFromEnv(func(string) string { return "c2hvcnQ=" }); return err }, CodeBadKey},
		{"logout of nobody", func() error { return sealed.Delete("nobody") }, CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if !IsCode(err, tt.code) {
				t.Fatalf("err = %v, want %s", err, tt.code)
			}
			if strings.Contains(err.Error(), cookieValue) || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString(key)) {
				t.Errorf("error holds a value: %v", err)
			}
		})
	}
}

func TestConcurrentUpdatesKeepEveryChange(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "ids"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := Diff(State{}, State{Cookies: []Cookie{{Name: fmt.Sprintf("c%d", i), Value: "v", Domain: "x", Path: "/"}}})
			if _, err := s.Update(context.Background(), "alice", func(r *Record) error { r.State = d.Apply(r.State); return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	rec, _ := s.Load("alice")
	if len(rec.State.Cookies) != n || rec.Rev != n {
		t.Fatalf("%d cookies, rev %d; want %d", len(rec.State.Cookies), rec.Rev, n)
	}
}

func TestDeltaNeverUndoesANewerValue(t *testing.T) {
	stale := State{Cookies: []Cookie{{Name: "sid", Value: "old-session", Domain: "x", Path: "/"}}}
	fresh := State{Cookies: []Cookie{{Name: "sid", Value: "new-session", Domain: "x", Path: "/"}, {Name: "pref", Value: "dark", Domain: "x", Path: "/"}}}
	tests := []struct {
		name       string
		base, now  State
		stored     State
		wantCookie map[string]string
	}{
		{"a call that saw its stale cookie cleared keeps the fresh login", stale, State{}, fresh, map[string]string{"sid": "new-session", "pref": "dark"}},
		{"a call that cleared the cookie it had removes it", stale, State{}, stale, map[string]string{}},
		{"a set wins", stale, State{Cookies: []Cookie{{Name: "sid", Value: "mine", Domain: "x", Path: "/"}}}, fresh, map[string]string{"sid": "mine", "pref": "dark"}},
		{"no change, no delta", fresh, fresh, stale, map[string]string{"sid": "old-session"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.base, tt.now).Apply(tt.stored)
			m := map[string]string{}
			for _, c := range got.Cookies {
				m[c.Name] = c.Value
			}
			if fmt.Sprint(m) != fmt.Sprint(tt.wantCookie) {
				t.Errorf("cookies = %v, want %v", m, tt.wantCookie)
			}
		})
	}
	// localStorage: an origin the call did not read is left alone.
	base := signedIn()
	d := Diff(base, State{Cookies: base.Cookies})
	if !d.Empty() {
		t.Errorf("unread origin gave a delta %+v", d)
	}
	now := signedIn()
	now.Origins[0].LocalStorage = []StorageItem{{Name: "theme", Value: "dark"}}
	got := Diff(base, now).Apply(base)
	if len(got.Origins) != 1 || len(got.Origins[0].LocalStorage) != 1 || got.Origins[0].LocalStorage[0].Name != "theme" {
		t.Errorf("storage after apply = %+v", got.Origins)
	}
}

func TestLiveAndSecrets(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	st := State{Cookies: []Cookie{
		{Name: "a", Value: "expired-cookie-1", Expires: float64(now.Unix() - 10)},
		{Name: "b", Value: "live-cookie-22", Expires: float64(now.Unix() + 10)},
		{Name: "c", Value: "1", Expires: -1},
	}}
	live := st.Live(now)
	if len(live.Cookies) != 2 || live.Cookies[0].Name != "b" {
		t.Errorf("Live = %+v", live.Cookies)
	}
	if got := strings.Join(live.Secrets(), ","); got != "live-cookie-22" {
		t.Errorf("Secrets = %q (short values are not secrets)", got)
	}
}

func TestExportImportAndLogout(t *testing.T) {
	key := testKey(t)
	a, _ := Open(filepath.Join(t.TempDir(), "a"), key)
	save(t, a, "alice", signedIn())
	for _, plain := range []bool{false, true} {
		var buf bytes.Buffer
		if err := a.Export("alice", &buf, plain); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(buf.Bytes(), []byte(cookieValue)) != plain {
			t.Errorf("plain=%v export holds the cookie: %v", plain, !plain)
		}
		b, _ := Open(filepath.Join(t.TempDir(), "b"), key)
		if err := b.Import(context.Background(), "alice2", &buf); err != nil {
			t.Fatal(err)
		}
		rec, err := b.Load("alice2")
		if err != nil || len(rec.State.Cookies) != 1 || rec.State.Cookies[0].Value != cookieValue {
			t.Fatalf("imported = %+v, %v", rec, err)
		}
	}
	if err := a.Import(context.Background(), "x", strings.NewReader("garbage")); !IsCode(err, CodeCorrupt) {
		t.Errorf("import garbage: %v", err)
	}
	if err := a.Delete("alice"); err != nil {
		t.Fatal(err)
	}
	if names, _ := a.Names(); len(names) != 0 {
		t.Errorf("after logout: %v", names)
	}
}

func TestLoginLockIsExclusive(t *testing.T) {
	s, _ := Open(filepath.Join(t.TempDir(), "ids"), nil)
	unlock, err := s.LockLogin(context.Background(), "alice", "login")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := s.LockLogin(ctx, "alice", "login"); err == nil {
		t.Fatal("a second holder got the login lock")
	}
	unlock()
	u2, err := s.LockLogin(context.Background(), "alice", "login")
	if err != nil {
		t.Fatal(err)
	}
	u2()
}

func FuzzOpenRecord(f *testing.F) {
	var buf bytes.Buffer
	s, err := Open(filepath.Join(f.TempDir(), "ids"), nil)
	if err != nil {
		f.Fatal(err)
	}
	_, _ = s.Update(context.Background(), "alice", func(r *Record) error { r.State = signedIn(); return nil })
	_ = s.Export("alice", &buf, true)
	f.Add(buf.Bytes())
	f.Add([]byte(`{"macrokit_identity":1,"name":"a","cipher":"aes-256-gcm","nonce":"AAAA","sealed":"AAAA"}`))
	key := make([]byte, 32)
	sealed := &Store{key: key}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, st := range []*Store{{}, sealed} {
			rec, _, err := st.decode("", data)
			if err == nil && rec == nil {
				t.Fatal("nil record without an error")
			}
		}
	})
}

// TestProcessUpdates runs updates from several processes (this test binary
// again) on one store: the flock keeps every one of them.
func TestProcessUpdates(t *testing.T) {
	if dir := os.Getenv("IDENTITY_TEST_CHILD_DIR"); dir != "" {
		s, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := strconv.Atoi(os.Getenv("IDENTITY_TEST_CHILD_BASE"))
		for i := range 10 {
			d := Diff(State{}, State{Cookies: []Cookie{{Name: fmt.Sprintf("c%d", base+i), Value: "v", Domain: "x", Path: "/"}}})
			if _, err := s.Update(context.Background(), "alice", func(r *Record) error { r.State = d.Apply(r.State); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	dir := filepath.Join(t.TempDir(), "ids")
	if _, err := Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	const procs = 4
	var wg sync.WaitGroup
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProcessUpdates$")
		cmd.Env = append(os.Environ(), "IDENTITY_TEST_CHILD_DIR="+dir, "IDENTITY_TEST_CHILD_BASE="+strconv.Itoa(p*100))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child: %v\n%s", err, out)
			}
		}()
	}
	wg.Wait()
	s, _ := Open(dir, nil)
	rec, err := s.Load("alice")
	if err != nil || len(rec.State.Cookies) != procs*10 || rec.Rev != procs*10 {
		t.Fatalf("after %d processes × 10 updates: %d cookies, rev %d, %v", procs, len(rec.State.Cookies), rec.Rev, err)
	}
}

// TestUpdateHonoursContext: an update waiting for a held lock gives up
// when its context ends, without running fn.
func TestUpdateHonoursContext(t *testing.T) {
	s, _ := Open(filepath.Join(t.TempDir(), "ids"), nil)
	unlock, err := s.lock(context.Background(), filepath.Join(s.Dir(), "alice.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	calls := 0
	if _, err := s.Update(ctx, "alice", func(*Record) error { calls++; return nil }); !errors.Is(err, context.DeadlineExceeded) || calls != 0 {
		t.Fatalf("Update while locked = %v (fn ran %d times), want the deadline", err, calls)
	}
}
