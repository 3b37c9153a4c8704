package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/audit/audittest"
	"github.com/macrokit/macrokit-go/runtime/identity"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// loginSite is a small site behind a login: /login signs a user in (a
// cookie), /app shows who is signed in, /act changes something; it counts
// logins and actions, and can end every session.
type loginSite struct {
	*httptest.Server
	mu       sync.Mutex
	sessions map[string]string // token -> user
	users    map[string]string
	logins   atomic.Int32
	acts     atomic.Int32
}

func newLoginSite(t *testing.T) *loginSite {
	s := &loginSite{sessions: map[string]string{}, users: map[string]string{"alice": "alice-pw", "bob": "bob-pw"}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Sign in</title><form method=post action=/login>
<label>Username <input name=username></label><label>Password <input name=password type=password></label>
<button>Sign in</button></form>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		u, p := r.FormValue("username"), r.FormValue("password")
		if want, ok := s.users[u]; !ok || want != p {
			http.Redirect(w, r, "/login?error=1", http.StatusSeeOther)
			return
		}
		var b [8]byte
		_, _ = rand.Read(b[:])
		tok := hex.EncodeToString(b[:])
		s.mu.Lock()
		s.sessions[tok] = u
		s.mu.Unlock()
		s.logins.Add(1)
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: tok, Path: "/", HttpOnly: true})
		http.Redirect(w, r, "/app", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /app", func(w http.ResponseWriter, r *http.Request) {
		u := s.user(r)
		if u == "" {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>App</title><p>Signed in as <b data-testid=user>%s</b></p>
<form method=post action=/act><button>Archive</button></form>`, u)
	})
	mux.HandleFunc("POST /act", func(w http.ResponseWriter, r *http.Request) {
		if s.user(r) == "" {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		s.acts.Add(1)
		s.expire() // the session ends right after the action
		http.Redirect(w, r, "/app", http.StatusSeeOther)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *loginSite) user(r *http.Request) string {
	c, err := r.Cookie("sid")
	if err != nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[c.Value]
}

func (s *loginSite) expire() {
	s.mu.Lock()
	s.sessions = map[string]string{}
	s.mu.Unlock()
}

// loginMacros are a login provider and the macros it serves, written as
// generated code would be.
func loginMacros(t *testing.T, site *loginSite, internal bool) *Registry {
	t.Helper()
	login := &Macro{Name: "login", Risk: RiskAct, Secrets: []string{"password"},
		Params: json.RawMessage(`{"type":"object","required":["username","password"],"properties":{"username":{"type":"string"},"password":{"type":"string"}}}`),
		Login: &Login{Internal: internal, SignedOut: []engine.Condition{{Kind: vocab.CondURLMatches, Pattern: "/login"}},
			Credentials: map[string]Credential{"username": {Literal: "alice"}, "password": {Env: "SITE_PASSWORD"}}},
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			var p struct{ Username, Password string }
			_ = json.Unmarshal(args, &p)
			steps := []engine.Step{
				{Action: vocab.ActGoto, URL: site.URL + "/login"},
				{Action: vocab.ActFill, Target: &engine.Target{Label: "Username"}, Value: p.Username},
				{Action: vocab.ActFill, Target: &engine.Target{Label: "Password"}, Value: p.Password, Sensitive: true},
				{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Sign in"}, Expect: []engine.Condition{{Kind: vocab.CondURLMatches, Pattern: "/app"}}},
			}
			for i, s := range steps {
				if err := x.Do(ctx, fmt.Sprintf("steps[%d]", i), s); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}}
	whoami := &Macro{Name: "whoami", Risk: RiskRead, Session: "login",
		Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
			if err := x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: site.URL + "/app"}); err != nil {
				return nil, err
			}
			v, err := x.Extract(ctx, "steps[1]", engine.Target{TestID: "user"}, engine.Field{Text: true}, StepOptions{Retry: engine.NoRetry})
			return map[string]any{"user": v}, err
		}}
	archive := &Macro{Name: "archive", Risk: RiskAct, Session: "login",
		Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
			if err := x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: site.URL + "/app"}); err != nil {
				return nil, err
			}
			// The click acts, and the page it lands on is the login page.
			return nil, x.Do(ctx, "steps[1]", engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Archive"},
				Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "Signed in as", Timeout: 500_000_000}}})
		}}
	reg, err := NewRegistry(login, whoami, archive)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func toolCalls(t *testing.T, log *sessionlog.Writer, tool string) []sessionlog.Record {
	t.Helper()
	recs, err := sessionlog.ReadFile(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	var out []sessionlog.Record
	for _, r := range recs.Records {
		if r.Type == sessionlog.RecToolCall && r.Tool == tool {
			out = append(out, r)
		}
	}
	return out
}

func TestLoginOnDemand(t *testing.T) {
	b := launch(t)
	site := newLoginSite(t)
	reg := loginMacros(t, site, true)
	log, err := sessionlog.Open(t.TempDir(), "login-on-demand")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	store, err := identity.Open(filepath.Join(t.TempDir(), "identities"), nil)
	if err != nil {
		t.Fatal(err)
	}
	sink := &audittest.Sink{}
	d := &Dispatcher{Registry: reg, Pages: ContextPages(b), Log: log, Identity: &Identity{Name: "alice", Store: store},
		Getenv: func(k string) string { return map[string]string{"SITE_PASSWORD": "alice-pw"}[k] }}
	ctx := audit.With(context.Background(), sink)

	// First use: the login runs by itself; the next ten calls reuse it.
	for i := range 11 {
		out := d.Dispatch(ctx, Call{ID: fmt.Sprintf("c%d", i), Name: "whoami"})
		if !out.OK || !strings.Contains(string(out.Result), `"alice"`) {
			t.Fatalf("call %d: %+v %s", i, out.Error, out.Result)
		}
		if i == 0 && (len(out.Logins) != 1 || !out.Logins[0].OK || out.Logins[0].Why != "signed out after steps[0]" || out.Logins[0].CallID != "c0.login") {
			t.Errorf("the first call reports logins %+v", out.Logins)
		}
	}
	if n := site.logins.Load(); n != 1 {
		t.Fatalf("logins after 11 calls = %d, want 1", n)
	}
	first := d.Dispatch(ctx, Call{ID: "again", Name: "whoami"})
	if len(first.Logins) != 0 {
		t.Errorf("a call with a live session reports logins %+v", first.Logins)
	}
	calls := toolCalls(t, log, "login")
	if len(calls) != 1 || calls[0].Data["on_demand_for"] != "whoami" || calls[0].Data["identity"] != "alice" {
		t.Fatalf("login tool_call records = %+v", calls)
	}
	var logins []audit.Event
	for _, e := range sink.Take() {
		if e.Kind == audit.Login {
			logins = append(logins, e)
		}
	}
	if len(logins) != 1 || logins[0].Identity != "alice" {
		t.Errorf("login audit events = %+v", logins)
	}

	// The site ends every session: four concurrent calls find out on the
	// page, and exactly one login renews it for all of them.
	site.expire()
	var wg sync.WaitGroup
	outs := make([]*Outcome, 4)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = d.Dispatch(ctx, Call{ID: fmt.Sprintf("p%d", i), Name: "whoami"})
		}()
	}
	wg.Wait()
	for i, out := range outs {
		if !out.OK || !strings.Contains(string(out.Result), `"alice"`) {
			t.Errorf("concurrent call %d: %+v %s", i, out.Error, out.Result)
		}
	}
	if n := site.logins.Load(); n != 2 {
		t.Fatalf("logins after expiry and 4 concurrent calls = %d, want 2", n)
	}

	// The stored state is 0600 and holds the cookie, never the password.
	raw, err := os.ReadFile(filepath.Join(store.Dir(), "alice.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(store.Dir(), "alice.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode = %v", fi.Mode().Perm())
	}
	if strings.Contains(string(raw), "alice-pw") {
		t.Error("the state file holds the password")
	}
	logged, _ := os.ReadFile(log.Path())
	if strings.Contains(string(logged), "alice-pw") {
		t.Error("the session log holds the password")
	}
	rec, _ := store.Load("alice")
	for _, c := range rec.State.Cookies {
		if strings.Contains(string(logged), c.Value) {
			t.Errorf("the session log holds the cookie value of %s", c.Name)
		}
	}
}

func TestSessionExpiredAfterAnActionIsNotRetried(t *testing.T) {
	b := launch(t)
	site := newLoginSite(t)
	d := &Dispatcher{Registry: loginMacros(t, site, false), Pages: ContextPages(b), Identity: &Identity{Name: "alice"},
		Getenv: func(k string) string { return map[string]string{"SITE_PASSWORD": "alice-pw"}[k] }}
	out := d.Dispatch(context.Background(), Call{ID: "a", Name: "archive"})
	if out.OK || out.Error.Code != CodeSessionExpired {
		t.Fatalf("outcome = %+v, want session_expired", out.Error)
	}
	if n := site.acts.Load(); n != 1 {
		t.Errorf("actions = %d, want exactly 1 (never applied twice)", n)
	}
	if n := site.logins.Load(); n != 1 {
		t.Errorf("logins = %d, want 1 (the first, none after the action)", n)
	}
}

func TestLoginOnDemandFailures(t *testing.T) {
	b := launch(t)
	site := newLoginSite(t)
	tests := []struct {
		name  string
		env   map[string]string
		creds func(string) (string, bool, error)
		code  ErrorCode
		msg   string
	}{
		{"wrong password", map[string]string{"SITE_PASSWORD": "nope-1234"}, nil, CodeLoginFailed, "the login by login for identity alice failed"},
		{"no password anywhere", nil, nil, CodeLoginFailed, "SITE_PASSWORD is not set"},
		{"the identity's own credentials win", map[string]string{"SITE_PASSWORD": "alice-pw"},
			func(p string) (string, bool, error) {
				if p == "username" {
					return "bob", true, nil
				}
				if p == "password" {
					return "bob-pw", true, nil
				}
				return "", false, nil
			}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Dispatcher{Registry: loginMacros(t, site, true), Pages: ContextPages(b), Identity: &Identity{Name: "alice", Credentials: tt.creds},
				Getenv: func(k string) string { return tt.env[k] }}
			out := d.Dispatch(context.Background(), Call{ID: "w", Name: "whoami"})
			if tt.code == "" {
				if !out.OK || !strings.Contains(string(out.Result), `"bob"`) {
					t.Fatalf("outcome = %+v %s", out.Error, out.Result)
				}
				return
			}
			if out.OK || out.Error.Code != tt.code || !strings.Contains(out.Error.Message, tt.msg) {
				t.Fatalf("outcome = %+v, want %s containing %q", out.Error, tt.code, tt.msg)
			}
			if strings.Contains(out.Error.Message, "nope-1234") {
				t.Error("the error holds the password")
			}
			if tt.name == "wrong password" && out.Error.Step == nil {
				t.Error("a failed login carries no evidence")
			}
		})
	}
}

func TestIdentitiesAreIsolated(t *testing.T) {
	b := launch(t)
	site := newLoginSite(t)
	store, err := identity.Open(filepath.Join(t.TempDir(), "identities"), nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := loginMacros(t, site, true)
	who := func(name string) string {
		id := &Identity{Name: name, Store: store, Credentials: func(p string) (string, bool, error) {
			switch p {
			case "username":
				return name, true, nil
			case "password":
				return name + "-pw", true, nil
			}
			return "", false, nil
		}}
		d := &Dispatcher{Registry: reg, Pages: ContextPages(b), Identity: id}
		out := d.Dispatch(context.Background(), Call{ID: name, Name: "whoami"})
		if !out.OK {
			t.Fatalf("%s: %+v", name, out.Error)
		}
		var r struct{ User string }
		_ = json.Unmarshal(out.Result, &r)
		return r.User
	}
	for range 2 {
		if got := who("alice"); got != "alice" {
			t.Errorf("alice sees %q", got)
		}
		if got := who("bob"); got != "bob" {
			t.Errorf("bob sees %q", got)
		}
	}
	if n := site.logins.Load(); n != 2 {
		t.Errorf("logins = %d, want one per identity", n)
	}
}

func TestInternalLoginsAreNotOffered(t *testing.T) {
	site := &loginSite{Server: &httptest.Server{URL: "http://127.0.0.1:1"}}
	for _, internal := range []bool{true, false} {
		reg := loginMacros(t, site, internal)
		var names []string
		for _, m := range reg.Offered() {
			names = append(names, m.Name)
		}
		got := strings.Join(names, ",")
		want := "archive,login,whoami"
		if internal {
			want = "archive,whoami"
		}
		if got != want {
			t.Errorf("internal=%v: offered %s, want %s", internal, got, want)
		}
	}
}
