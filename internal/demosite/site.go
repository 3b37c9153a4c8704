package demosite

import (
	"bytes"
	"crypto/subtle"
	"embed"
	"fmt"
	"html"
	"io/fs"
	mathrand "math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime/totp"
)

// Default credentials, used when Options.Users is empty.
const (
	DefaultUsername = "admin"
	DefaultPassword = "demo-password"
)

// SessionCookie is the name of the cookie POST /api/login sets.
const SessionCookie = "mk_session"

// InjectHeader is the request header that selects fault-injection modes for
// one API request (see the package documentation). The pages send it on
// every API call they make while their URL carries ?inject=.
const InjectHeader = "X-Inject"

// Options configures a Site. The zero value is ready to use.
type Options struct {
	// Seed drives the generated orders (which customer, status, total and
	// time each has). The same Seed and Clock always give the same data.
	Seed int64
	// Users maps usernames to passwords for /login. Empty means
	// {DefaultUsername: DefaultPassword}.
	Users map[string]string
	// Clock returns the current time; nil means time.Now. It is read once in
	// New to date the seeded data (orders are spread over the 60 days before
	// that day, UTC) and again whenever a customer is created.
	Clock func() time.Time
	// RequireLogin makes every page except /login redirect to /login, and
	// every API route except login, logout, session and health answer 401,
	// until the client has a session (static assets and /healthz stay open). The default (false) lets macros use
	// the site without signing in; signing in still works.
	RequireLogin bool
	// SlowDelay is how long the API waits per request under inject=slow, and
	// how long slow pages hold back their late elements. Zero means a
	// pseudo-random delay between 1 and 2 seconds per request.
	SlowDelay time.Duration
	// Inject turns fault-injection modes on for every page and API request
	// (the same names as ?inject=, comma-separated), on top of what each
	// request asks for: `macrokit demo serve --inject fakeSuccess` shows
	// verification catching a fake success without editing any macro.
	Inject string
	// InjectRules turn fault modes on per request by the submitted data (an
	// email's domain), on top of Inject: the API applies them to a write
	// whose JSON body matches, and pages apply them to a form whose fields
	// match (a swallowed Save for flaky, a list left alone for
	// fakeSuccess), so one run can mix faulty rows into good ones.
	InjectRules []InjectRule
	// SessionTTL is how long a session lasts after it was created (it does
	// not slide with use); an expired session cookie counts as no session and
	// is forgotten. Zero means sessions last until logout or Reset. Expiry
	// is measured with Clock, so a test can move time.
	SessionTTL time.Duration
	// TOTP maps usernames to base32 secrets (or otpauth:// URIs). A user
	// with a secret signs in in two steps: a right password gets a pending
	// login, and only a valid one-time code for it (POST /api/login/verify)
	// starts the session. Empty means no second factor for anyone.
	TOTP map[string]string
	// Drift renders the pages as a redesigned release would: DriftRelabel
	// renames labels and buttons and moves one, DriftDecoy puts a
	// look-alike in a button's place (drift.go, docs/heal.md). The API and
	// the data are unchanged. "" is the site as the macros were written.
	Drift string
}

// Check reports options New would accept but that cannot work: a negative
// SessionTTL, a TOTP secret that does not parse (the error names the user,
// never the secret) or an unknown Drift mode.
func (o Options) Check() error {
	if o.SessionTTL < 0 {
		return fmt.Errorf("demosite: negative session TTL %s", o.SessionTTL)
	}
	if err := checkDrift(o.Drift); err != nil {
		return err
	}
	for user, secret := range o.TOTP {
		if _, _, err := totp.Parse(secret); err != nil {
			return fmt.Errorf("demosite: TOTP secret of user %q: %w", user, err)
		}
	}
	return nil
}

// Site is the demo back-office app: pages, JSON API and in-memory state.
// Create one with New; it is safe for concurrent use.
type Site struct {
	opts    Options
	users   map[string]string
	clock   func() time.Time
	base    time.Time // "today" of the seeded data, fixed at New
	handler http.Handler

	mu       sync.Mutex
	st       *store
	sessions map[string]session      // token -> who and since when
	pending  map[string]pendingLogin // token -> a right password waiting for its one-time code
	stats    Stats
	slowRng  *mathrand.Rand
	inject   string // site-wide fault modes (Options.Inject, SetInject)
}

//go:embed static
var staticFiles embed.FS

// pages maps each page route to its HTML file under static/.
var pages = map[string]string{
	"/login":        "static/login.html",
	"/login/verify": "static/verify.html",
	"/customers":    "static/customers.html",
	"/orders":       "static/orders.html",
	"/settings":     "static/settings.html",
}

// New returns a Site holding freshly seeded state.
func New(opts Options) *Site {
	s := &Site{opts: opts, inject: opts.Inject, clock: opts.Clock}
	if s.clock == nil {
		s.clock = time.Now
	}
	s.users = opts.Users
	if len(s.users) == 0 {
		s.users = map[string]string{DefaultUsername: DefaultPassword}
	}
	now := s.clock().UTC()
	s.base = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	s.Reset()
	s.handler = s.routes()
	return s
}

// Reset restores the seeded state: customers, orders and settings as New
// made them. It also ends every login session and pending login, and
// zeroes the Stats counters.
func (s *Site) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st = newStore(s.opts.Seed, s.base)
	s.sessions = map[string]session{}
	s.pending = map[string]pendingLogin{}
	s.stats = Stats{}
	s.slowRng = mathrand.New(mathrand.NewPCG(uint64(s.opts.Seed), 0x736c6f77)) // "slow"
}

// Handler returns the http.Handler serving the site's pages, static assets
// and API. The same handler is returned on every call.
func (s *Site) Handler() http.Handler { return s.handler }

func (s *Site) routes() http.Handler {
	mux := http.NewServeMux()

	// API. Methods are checked inside the handlers so that a wrong method
	// gets the same JSON error shape as everything else.
	mux.Handle("/api/customers", s.api(s.handleCustomers))
	mux.Handle("/api/customers/{id}", s.api(s.handleCustomer))
	mux.Handle("/api/orders", s.api(s.handleOrders))
	mux.Handle("/api/orders/export", s.api(s.handleOrdersExport))
	mux.Handle("/api/orders/{id}", s.api(s.handleOrder))
	mux.Handle("/api/settings", s.api(s.handleSettings))
	mux.Handle("/api/login", s.api(s.handleLogin))
	mux.Handle("/api/login/verify", s.api(s.handleVerify))
	mux.Handle("/api/logout", s.api(s.handleLogout))
	mux.Handle("/api/session", s.api(s.handleSession))
	mux.Handle("/api/health", s.api(s.handleHealth))
	mux.Handle("/api/", s.api(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "No API route "+r.URL.Path+".", nil)
	}))

	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok\n"))
	})

	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the embed directive guarantees the directory exists
	}
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	mux.Handle("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, ".html") {
			s.notFoundPage(w, r) // no directory listings; pages have clean URLs
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/static/favicon.svg", http.StatusMovedPermanently)
	})

	for route, file := range pages {
		mux.HandleFunc(route, s.pageHandler(file))
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		target := "/customers"
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusFound)
	})
	mux.HandleFunc("/", s.notFoundPage)

	return s.withAuth(mux)
}

// withAuth adds common headers and, with RequireLogin, keeps anonymous
// clients out of everything but the login page, static assets and the open
// API routes.
func (s *Site) withAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if !s.opts.RequireLogin || isPublicPath(r.URL.Path) || s.sessionUser(r) != "" {
			next.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			writeError(w, http.StatusUnauthorized, "unauthorized", "Sign in first: POST /api/login.", nil)
			return
		}
		if _, ok := pages[r.URL.Path]; ok || r.URL.Path == "/" {
			loc := "/login?next=" + url.QueryEscape(r.URL.RequestURI())
			if inj := r.URL.Query().Get("inject"); inj != "" {
				loc += "&inject=" + url.QueryEscape(inj) // the login page runs in the same mode
			}
			http.Redirect(w, r, loc, http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r) // unknown paths: a plain 404, logged in or not
	})
}

func isPublicPath(p string) bool {
	switch p {
	case "/login", "/login/verify", "/healthz", "/favicon.ico",
		"/api/login", "/api/login/verify", "/api/logout", "/api/session", "/api/health":
		return true
	}
	return strings.HasPrefix(p, "/static/")
}

// pageHandler serves one embedded page, stamping the <html> element with the
// state its scripts need: the active inject modes, the current user, the
// theme.
func (s *Site) pageHandler(file string) http.HandlerFunc {
	body, err := staticFiles.ReadFile(file)
	if err != nil {
		panic(err) // a missing page is a build error
	}
	body = drift(s.opts.Drift, file, body)
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		modes := parseInject(r.URL.Query().Get("inject")) | s.siteInject()
		user := s.sessionUser(r)
		s.mu.Lock()
		dark := s.st.settingsOf(s.settingsOwner(user)).DarkMode
		var delay time.Duration
		if modes.has(injectSlow) {
			delay = s.slowDelayLocked()
		}
		s.mu.Unlock()

		attrs := []string{`lang="en"`}
		if len(s.opts.InjectRules) > 0 {
			attrs = append(attrs, `data-inject-rules="`+html.EscapeString(rulesAttr(s.opts.InjectRules))+`"`)
		}
		if modes != 0 {
			attrs = append(attrs, `data-inject="`+html.EscapeString(modes.String())+`"`)
			if modes.has(injectSlow) {
				attrs = append(attrs, `data-inject-delay-ms="`+strconv.FormatInt(delay.Milliseconds(), 10)+`"`)
			}
		}
		if dark {
			attrs = append(attrs, `data-theme="dark"`)
		}
		if user != "" {
			attrs = append(attrs, `data-user="`+html.EscapeString(user)+`"`)
		}
		if s.opts.RequireLogin {
			attrs = append(attrs, `data-require-login="true"`)
		}
		out := bytes.Replace(body, []byte(`<html lang="en">`), []byte("<html "+strings.Join(attrs, " ")+">"), 1)

		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(out)
	}
}

func (s *Site) notFoundPage(w http.ResponseWriter, r *http.Request) {
	body, _ := staticFiles.ReadFile("static/404.html")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// slowDelayLocked picks the delay for one slow request. s.mu must be held.
func (s *Site) slowDelayLocked() time.Duration {
	if s.opts.SlowDelay > 0 {
		return s.opts.SlowDelay
	}
	return time.Second + time.Duration(s.slowRng.IntN(1000))*time.Millisecond
}

// checkPassword reports whether user/password are valid credentials.
func (s *Site) checkPassword(user, password string) bool {
	want, ok := s.users[user]
	if !ok {
		want = "\x00" // still compare, so timing does not reveal which users exist
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(password)) == 1 && ok
}
