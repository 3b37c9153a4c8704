package demosite

import (
	"encoding/base32"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/totp"
)

// totpSite is a RequireLogin site where admin has a second factor, on a
// clock the test moves.
func totpSite(t *testing.T) (*Site, *fakeClock, string) {
	t.Helper()
	secret := base32.StdEncoding.EncodeToString([]byte("12345678901234567890"))
	clk := &fakeClock{now: time.Unix(1_111_111_111, 0)}
	return New(Options{RequireLogin: true, TOTP: map[string]string{DefaultUsername: secret}, Clock: clk.Now}), clk, secret
}

func cookieNamed(r response, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestVerifyReplayOfPendingToken sends the pending token from the 202 body
// explicitly, so the replay is refused by the server, not by a lost cookie.
func TestVerifyReplayOfPendingToken(t *testing.T) {
	site, clk, secret := totpSite(t)
	var pend struct {
		TOTPRequired bool   `json:"totp_required"`
		PendingToken string `json:"pending_token"`
		Redirect     string `json:"redirect"`
	}
	r := do(t, site, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"demo-password","next":"/orders"}`})
	if r.code != 202 || cookieNamed(r, SessionCookie) != nil {
		t.Fatalf("password step: %d %s", r.code, r.body)
	}
	r.decode(t, &pend)
	if !pend.TOTPRequired || pend.PendingToken == "" || pend.Redirect != "/login/verify?next=%2Forders" {
		t.Fatalf("202 body %s", r.body)
	}
	code, _ := totp.Generate(secret, clk.Now())
	body := `{"code":"` + code + `","pending_token":"` + pend.PendingToken + `"}`
	ok := do(t, site, req{method: "POST", path: "/api/login/verify", body: body})
	if ok.code != 200 || cookieNamed(ok, SessionCookie) == nil || !strings.Contains(ok.body, `"redirect": "/orders"`) {
		t.Fatalf("verify: %d %s", ok.code, ok.body)
	}
	again := do(t, site, req{method: "POST", path: "/api/login/verify", body: body})
	if again.code != 401 || again.apiErr(t).Code != "login_expired" || cookieNamed(again, SessionCookie) != nil {
		t.Fatalf("replay: %d %s", again.code, again.body)
	}
	if st := site.Stats(); st.Logins != 1 || st.TOTPChallenges != 1 || st.TOTPFailures != 1 || st.LoginAttempts != 1 {
		t.Errorf("stats = %+v", st)
	}
}

// TestVerifyPendingLimits: a pending login lasts 5 minutes and survives 4
// wrong codes, not 5.
func TestVerifyPendingLimits(t *testing.T) {
	tests := []struct {
		name   string
		wrong  int           // wrong codes sent first
		wait   time.Duration // then the clock moves
		status int           // what the right code then gets
		errors string
	}{
		{"right away", 0, 0, 200, ""},
		{"after four wrong codes", 4, 0, 200, ""},
		{"after five wrong codes", 5, 0, 401, "login_expired"},
		{"within five minutes", 0, 4*time.Minute + 59*time.Second, 200, ""},
		{"after five minutes", 0, 5 * time.Minute, 401, "login_expired"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			site, clk, secret := totpSite(t)
			r := do(t, site, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"demo-password"}`})
			pc := cookieNamed(r, PendingCookie)
			if r.code != 202 || pc == nil || !pc.HttpOnly {
				t.Fatalf("password step: %d %v", r.code, pc)
			}
			for range tc.wrong {
				w := do(t, site, req{method: "POST", path: "/api/login/verify", body: `{"code":"000000"}`, cookies: []*http.Cookie{pc}})
				if w.code != 401 || w.apiErr(t).Code != "invalid_code" {
					t.Fatalf("wrong code: %d %s", w.code, w.body)
				}
			}
			clk.Add(tc.wait)
			code, _ := totp.Generate(secret, clk.Now())
			v := do(t, site, req{method: "POST", path: "/api/login/verify", body: `{"code":"` + code + `"}`, cookies: []*http.Cookie{pc}})
			if v.code != tc.status {
				t.Fatalf("right code: %d %s, want %d", v.code, v.body, tc.status)
			}
			if tc.errors != "" && v.apiErr(t).Code != tc.errors {
				t.Errorf("error %s, want %s", v.body, tc.errors)
			}
			wantLogins := 0
			if tc.status == 200 {
				wantLogins = 1
			}
			if st := site.Stats(); st.Logins != wantLogins || st.TOTPFailures != tc.wrong+1-wantLogins {
				t.Errorf("stats = %+v", st)
			}
		})
	}
}

// TestVerifyFormPosts: without JavaScript both steps work as plain form
// posts with 303 redirects.
func TestVerifyFormPosts(t *testing.T) {
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	site, clk, secret := totpSite(t)
	r := do(t, site, req{method: "POST", path: "/api/login", body: "username=admin&password=demo-password&next=%2Fsettings", headers: form})
	pc := cookieNamed(r, PendingCookie)
	if r.code != 303 || r.header.Get("Location") != "/login/verify?next=%2Fsettings" || pc == nil || cookieNamed(r, SessionCookie) != nil {
		t.Fatalf("password step: %d %q %v", r.code, r.header.Get("Location"), pc)
	}
	good, _ := totp.Generate(secret, clk.Now())
	tests := []struct {
		name, body, location string
		session              bool
	}{
		{"wrong code", "code=123456", "/login/verify?error=invalid&next=%2Fsettings", false},
		{"empty code", "code=", "/login/verify?error=invalid&next=%2Fcustomers", false},
		{"right code, spaced as apps show it", "code=" + good[:3] + "+" + good[3:], "/settings", true},
		{"replay", "code=" + good + "&next=%2Forders", "/login?error=expired&next=%2Forders", false},
	}
	for _, tc := range tests { // in order: the right code uses the pending login up
		t.Run(tc.name, func(t *testing.T) {
			v := do(t, site, req{method: "POST", path: "/api/login/verify", body: tc.body, headers: form, cookies: []*http.Cookie{pc}})
			if v.code != 303 || v.header.Get("Location") != tc.location {
				t.Fatalf("%d %q, want 303 %q", v.code, v.header.Get("Location"), tc.location)
			}
			sc := cookieNamed(v, SessionCookie)
			if (sc != nil) != tc.session {
				t.Fatalf("session cookie %v, want %v", sc, tc.session)
			}
			if sc != nil {
				if p := do(t, site, req{path: "/settings", cookies: []*http.Cookie{sc}}); p.code != 200 || !strings.Contains(p.body, `data-user="admin"`) {
					t.Errorf("signed-in page: %d", p.code)
				}
				if cleared := cookieNamed(v, PendingCookie); cleared == nil || cleared.MaxAge >= 0 {
					t.Errorf("pending cookie not cleared: %v", cleared)
				}
			}
		})
	}
}

// TestUsersSeeTheirOwnPages: with RequireLogin the header and the theme are
// the signed-in user's.
func TestUsersSeeTheirOwnPages(t *testing.T) {
	site := newTestSite(t, Options{RequireLogin: true, Users: map[string]string{"alice": "a-pw", "bob": "b-pw"}})
	login := func(user, pw string) *http.Cookie {
		c := cookieNamed(do(t, site, req{method: "POST", path: "/api/login", body: `{"username":"` + user + `","password":"` + pw + `"}`}), SessionCookie)
		if c == nil {
			t.Fatalf("%s cannot sign in", user)
		}
		return c
	}
	alice, bob := login("alice", "a-pw"), login("bob", "b-pw")
	if r := do(t, site, req{method: "PUT", path: "/api/settings", body: `{"dark_mode":true,"weekly_report":true}`, cookies: []*http.Cookie{alice}}); r.code != 200 {
		t.Fatalf("alice saves: %d %s", r.code, r.body)
	}
	tests := []struct {
		who      string
		cookie   *http.Cookie
		settings settings
		stamp    string
	}{
		{"alice", alice, settings{EmailNotifications: true, WeeklyReport: true, DarkMode: true}, `<html lang="en" data-theme="dark" data-user="alice" data-require-login="true">`},
		{"bob", bob, seedSettings, `<html lang="en" data-user="bob" data-require-login="true">`},
	}
	for _, tc := range tests {
		t.Run(tc.who, func(t *testing.T) {
			var got settings
			do(t, site, req{path: "/api/settings", cookies: []*http.Cookie{tc.cookie}}).decode(t, &got)
			if got != tc.settings {
				t.Errorf("settings %+v, want %+v", got, tc.settings)
			}
			if p := do(t, site, req{path: "/settings", cookies: []*http.Cookie{tc.cookie}}); !strings.Contains(p.body, tc.stamp) {
				t.Errorf("page lacks %s", tc.stamp)
			}
		})
	}
	// The site's own settings (no login required) are untouched.
	site.mu.Lock()
	global := site.st.settings
	site.mu.Unlock()
	if global != seedSettings {
		t.Errorf("alice's save changed the site's settings: %+v", global)
	}
}
