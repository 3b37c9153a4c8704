package explore

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// Session is one conversation's explore state: the page its tools share
// (one per conversation, so a click acts on what the previous goto
// loaded), the secrets its calls typed, and the site it works on. Its
// calls run through a runtime.Dispatcher like any macro's. It is not safe
// for concurrent calls (a conversation is sequential).
type Session struct {
	d       *runtime.Dispatcher
	src     runtime.PageSource
	client  *http.Client
	sites   *runtime.SitePolicy
	baseURL string
	// approver answers for consequential raw actions (base's Approver;
	// nil: they are refused with approval_required).
	approver runtime.Approver

	mu      sync.Mutex
	page    *engine.Page
	release func()
	secrets []string
}

// NewSession returns a session whose tools are dispatched like base's
// macros (its HTTP client, site policy, environment) and logged to log,
// on one page opened from base's Pages on first use. A consequential
// click or Enter (a submit, pay, delete... or a form submission) needs
// base's Approver. Paths (page_goto
// /customers) resolve against baseURL while no http(s) page is open. base
// may be nil: then only http_request runs.
func NewSession(base *runtime.Dispatcher, log *sessionlog.Writer, baseURL string) *Session {
	s := &Session{baseURL: baseURL}
	s.d = &runtime.Dispatcher{Registry: registry, Log: log, Pages: s.pages, Timeout: DefaultTimeout}
	if base != nil {
		s.src, s.client, s.sites, s.approver = base.Pages, base.HTTPClient, base.Sites, base.Approver
		s.d.HTTPClient, s.d.Sites, s.d.Getenv = base.HTTPClient, base.Sites, base.Getenv
	}
	return s
}

type sessionKey struct{}

// sessionFrom returns the session a tool call runs in.
func sessionFrom(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

func (s *Session) context(ctx context.Context) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// Dispatch repairs, validates and runs one tool call on the session's
// page, and writes its tool_call and tool_result records (raw: true).
// Invalid arguments give an invalid_arguments outcome and nothing runs; a
// failed action gives a step_failed outcome carrying the engine's
// evidence.
func (s *Session) Dispatch(ctx context.Context, c runtime.Call) *runtime.Outcome {
	if m, ok := Lookup(c.Name); ok {
		norm, _ := m.NormalizeArgs(c.Args)
		if valid, cerr := m.Validate(norm); cerr == nil {
			return s.DispatchValid(ctx, c.ID, c.Turn, valid)
		}
	}
	return s.d.Dispatch(s.context(ctx), c)
}

// DispatchValid runs a tool call whose arguments Validate accepted.
func (s *Session) DispatchValid(ctx context.Context, id string, turn int, args runtime.ValidArgs) *runtime.Outcome {
	return s.d.DispatchValid(s.context(ctx), id, turn, args)
}

// NoteSecrets registers the secret values in a tool call's arguments
// before anything that carries them is recorded (a page_fill into a
// password field, credential headers of an http_request) and returns
// every secret the session holds.
func (s *Session) NoteSecrets(ctx context.Context, name string, args json.RawMessage) []string {
	if m, ok := Lookup(name); ok {
		return m.SecretsIn(s.context(ctx), args)
	}
	return s.secretList()
}

// Secrets returns the values the session redacts: what its calls typed
// into secret fields or sent as credentials.
func (s *Session) Secrets() []string { return s.secretList() }

// Close closes the page, if one was opened.
func (s *Session) Close() error {
	s.mu.Lock()
	rel := s.release
	s.page, s.release = nil, nil
	s.mu.Unlock()
	if rel != nil {
		rel()
	}
	return nil
}

// errNoBrowser: a page tool in a deployment without a browser.
var errNoBrowser = errors.New("no browser is configured for explore mode's page tools")

// pages is the session dispatcher's PageSource: the session's one page,
// opened on first use and released by Close, not by the call.
func (s *Session) pages(ctx context.Context) (*engine.Page, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.page != nil {
		return s.page, func() {}, nil
	}
	if s.src == nil {
		return nil, nil, errNoBrowser
	}
	// The page outlives this call: a rod page keeps the context it was
	// created with for some requests (Page.URL), so that context must not
	// end with the call.
	p, rel, err := s.src(context.WithoutCancel(ctx))
	if err != nil {
		return nil, nil, err
	}
	for _, v := range s.secrets {
		p.AddSecret(v)
	}
	s.page, s.release = p, rel
	return p, func() {}, nil
}

func (s *Session) current() *engine.Page {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.page
}

// policy is the site policy in force for a call: the session's, else the
// context's.
func (s *Session) policy(ctx context.Context) *runtime.SitePolicy {
	if s.sites != nil {
		return s.sites
	}
	return runtime.SitePolicyFrom(ctx)
}

// offSite checks the page's URL against the policy. A page that is off
// the allowed sites (a link, a redirect or a script took it there) is
// blanked before the error returns, so no later snapshot, extract or
// action reads or acts on it.
func (s *Session) offSite(ctx context.Context, p *engine.Page) error {
	sites := s.policy(ctx)
	if sites == nil {
		return nil
	}
	u, err := p.URL(ctx)
	if err != nil {
		return nil
	}
	if serr := sites.Check(u); serr != nil {
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = p.Goto(bctx, "about:blank")
		cancel()
		return serr
	}
	return nil
}

// addSecret registers a value with the session and its page, so no later
// record, trace or evidence carries it.
func (s *Session) addSecret(v string) {
	if strings.TrimSpace(v) == "" {
		return
	}
	s.mu.Lock()
	if slices.Contains(s.secrets, v) {
		s.mu.Unlock()
		return
	}
	s.secrets = append(s.secrets, v)
	p := s.page
	s.mu.Unlock()
	if p != nil {
		p.AddSecret(v)
	}
}

func (s *Session) secretList() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.secrets...)
}

func (s *Session) isSecret(v string) bool { return slices.Contains(s.secretList(), v) }

// secretNameRE matches field names and labels that hold credentials.
var secretNameRE = regexp.MustCompile(`(?i)pass(word|phrase|code)|passwd|secret|token|api[-_ ]?key|\bpin\b|\botp\b|one[- ]time`)

// secretHeaderRE matches request headers that carry credentials.
var secretHeaderRE = regexp.MustCompile(`(?i)^(authorization|proxy-authorization|cookie)$|token|secret|api[-_]?key|password`)

// secretsOf returns a tool's SecretsOf: it registers the secrets in the
// call's arguments with the call's session and returns all of the
// session's, which the dispatcher then redacts from the call's records.
func secretsOf(m *runtime.Macro) func(context.Context, json.RawMessage) []string {
	return func(ctx context.Context, args json.RawMessage) []string {
		s := sessionFrom(ctx)
		if s == nil {
			return nil
		}
		norm, _ := m.NormalizeArgs(args)
		var a rawArgs
		if json.Unmarshal(norm, &a) == nil {
			s.noteSecrets(ctx, m.Name, a)
		}
		return s.secretList()
	}
}

func (s *Session) noteSecrets(ctx context.Context, name string, a rawArgs) {
	switch name {
	case Fill:
		v, _ := a.Value.(string)
		if v != "" && a.Target != nil && s.secretField(ctx, *a.Target) {
			s.addSecret(v)
		}
	case HTTP:
		for k, v := range a.Headers {
			if !secretHeaderRE.MatchString(k) {
				continue
			}
			s.addSecret(v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				s.addSecret(strings.TrimSpace(tok))
			}
		}
	}
}

// secretField reports whether t is a password (or similar) field: its
// type on the live page when it resolves, else its wording.
func (s *Session) secretField(ctx context.Context, t engine.Target) bool {
	if p := s.current(); p != nil {
		rctx, cancel := context.WithTimeout(ctx, secretProbeWait)
		el, err := p.Resolve(rctx, t)
		cancel()
		if err == nil {
			a := el.Fingerprint.Attrs
			if strings.EqualFold(a["type"], "password") {
				return true
			}
			for _, v := range []string{el.Name, a["name"], a["id"], a["aria-label"], a["placeholder"]} {
				if secretNameRE.MatchString(v) {
					return true
				}
			}
		}
	}
	// The field itself, not a container it is within, says what it holds.
	for _, v := range []string{t.Name, t.Label, t.Placeholder, t.TestID, t.CSS} {
		if secretNameRE.MatchString(v) {
			return true
		}
	}
	return false
}
