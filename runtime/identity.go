package runtime

import (
	"sync"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/identity"
)

// Login is the session contract of a macro that signs in (the spec's
// `login:` block): how a page shows that the session is gone, and where
// the arguments come from when the runtime runs it on demand for another
// macro (Macro.Session).
type Login struct {
	// Internal marks a login that only serves other macros: the router
	// never offers it, so no model is ever asked for a password.
	Internal bool
	// SignedOut are conditions any one of which, passing on a page, means
	// the session is missing or expired (url_matches: /login).
	SignedOut []engine.Condition
	// SignedIn are conditions that all hold on a signed-in page; failing
	// after a navigation means the session is gone.
	SignedIn []engine.Condition
	// Credentials say where each parameter comes from when the identity's
	// configuration does not name it.
	Credentials map[string]Credential
}

// Credential is where one login parameter's value comes from: an
// environment variable or, for parameters that are not secret, a literal.
type Credential struct {
	Env     string
	Literal string
}

// Identity is who a dispatcher's calls run as: the browser state restored
// into each call's context and saved back when the call changed it, and
// the credentials its logins get.
type Identity struct {
	// Name is the identity's name ("default" when a deployment names none).
	Name string
	// Store persists the state: an *identity.Store (files on this
	// machine) or a fleet's shared store (runtime/identity/kvstore). Nil
	// keeps it in memory for the process; a nil *identity.Store must be
	// left as a nil interface, not assigned here.
	Store identity.Keeper
	// Credentials returns this identity's configured value of a login
	// parameter (ok false: not configured, the spec's Credentials apply).
	Credentials func(param string) (value string, ok bool, err error)

	mu      sync.Mutex
	mem     *identity.Record        // the state without a Store
	flights map[string]*loginFlight // logins in progress, by provider
}
