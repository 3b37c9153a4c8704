package demosite

import (
	"bytes"
	"encoding/base32"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/totp"
)

// fakeClock is a clock tests move.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// client is a browser-like API client with a cookie jar.
type client struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newClient(t *testing.T, srv *httptest.Server) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: srv.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.c.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (c *client) login(user, pw string) int {
	code, _ := c.do("POST", "/api/login", map[string]string{"username": user, "password": pw})
	return code
}

func TestSessionTTLAndExpire(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	site := New(Options{RequireLogin: true, SessionTTL: 10 * time.Minute, Clock: clk.Now})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	c := newClient(t, srv)
	if code, _ := c.do("GET", "/api/customers", nil); code != 401 {
		t.Fatalf("anonymous: %d", code)
	}
	if code := c.login(DefaultUsername, DefaultPassword); code != 200 {
		t.Fatalf("login: %d", code)
	}
	clk.Add(9 * time.Minute)
	if code, _ := c.do("GET", "/api/customers", nil); code != 200 {
		t.Fatalf("within the TTL: %d", code)
	}
	clk.Add(2 * time.Minute) // 11 minutes after the login: the TTL does not slide
	if code, _ := c.do("GET", "/api/customers", nil); code != 401 {
		t.Fatalf("after the TTL: %d", code)
	}
	if code := c.login(DefaultUsername, DefaultPassword); code != 200 {
		t.Fatal("login again")
	}
	if n := site.ExpireSessions(); n != 1 {
		t.Errorf("ExpireSessions ended %d sessions", n)
	}
	if code, _ := c.do("GET", "/api/customers", nil); code != 401 {
		t.Fatalf("after ExpireSessions: %d", code)
	}
	if st := site.Stats(); st.Logins != 2 || st.SessionsExpired != 2 {
		t.Errorf("stats = %+v", st)
	}
}

func TestSettingsArePerUser(t *testing.T) {
	site := New(Options{RequireLogin: true, Users: map[string]string{"alice": "a-pw", "bob": "b-pw"}})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	alice, bob := newClient(t, srv), newClient(t, srv)
	alice.login("alice", "a-pw")
	bob.login("bob", "b-pw")
	if code, _ := alice.do("PUT", "/api/settings", map[string]bool{"dark_mode": true}); code != 200 {
		t.Fatalf("alice saves: %d", code)
	}
	_, a := alice.do("GET", "/api/settings", nil)
	_, b := bob.do("GET", "/api/settings", nil)
	if !site.DarkModeOf("alice") || site.DarkModeOf("bob") || a["dark_mode"] != true || b["dark_mode"] != false {
		t.Errorf("alice %v, bob %v", a, b)
	}
	// Without RequireLogin the settings stay the site's, as before.
	open := New(Options{})
	if open.DarkModeOf("alice") != open.DarkModeOf("") {
		t.Error("per-user settings without RequireLogin")
	}
}

func TestTOTPSecondFactor(t *testing.T) {
	secret := base32.StdEncoding.EncodeToString([]byte("12345678901234567890"))
	clk := &fakeClock{now: time.Unix(1_111_111_111, 0)}
	site := New(Options{RequireLogin: true, TOTP: map[string]string{DefaultUsername: secret}, Clock: clk.Now})
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	code := func(at time.Time) string { c, _ := totp.Generate(secret, at); return c }
	tests := []struct {
		name    string
		code    string
		status  int
		session bool
	}{
		{"a wrong code", "000000", 401, false},
		{"the current code", code(clk.Now()), 200, true},
		{"the previous period's code (skew 1)", code(clk.Now().Add(-30 * time.Second)), 200, true},
		{"a code two periods old", code(clk.Now().Add(-60 * time.Second)), 401, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, srv)
			if st := c.login(DefaultUsername, DefaultPassword); st != 202 {
				t.Fatalf("password step: %d, want 202 (a code is needed)", st)
			}
			if st, _ := c.do("GET", "/api/customers", nil); st != 401 {
				t.Fatalf("a right password alone opened a session: %d", st)
			}
			st, body := c.do("POST", "/api/login/verify", map[string]string{"code": tt.code})
			if st != tt.status {
				t.Fatalf("verify: %d %v, want %d", st, body, tt.status)
			}
			if tt.status == 401 && !strings.Contains(body["error"].(map[string]any)["message"].(string), InvalidCodeMessage) {
				t.Errorf("wrong code answered %v", body)
			}
			got, _ := c.do("GET", "/api/customers", nil)
			if (got == 200) != tt.session {
				t.Errorf("session after verify: %d", got)
			}
			if tt.session {
				// The pending login is used up: a replay starts nothing.
				if st, _ := c.do("POST", "/api/login/verify", map[string]string{"code": tt.code}); st != 401 {
					t.Errorf("replayed verify: %d", st)
				}
			}
		})
	}
	st := site.Stats()
	if st.Logins != 2 || st.TOTPChallenges != 4 || st.TOTPFailures != 4 {
		t.Errorf("stats = %+v", st)
	}
}

func TestOptionsCheck(t *testing.T) {
	if err := (Options{TOTP: map[string]string{"admin": "not base32!"}}).Check(); err == nil || strings.Contains(err.Error(), "not base32!") {
		t.Errorf("bad secret: %v", err)
	}
	if err := (Options{SessionTTL: -time.Second}).Check(); err == nil {
		t.Error("negative TTL accepted")
	}
}
