package spec

import (
	"sort"

	"gopkg.in/yaml.v3"
)

// Login is a login macro's session contract (the `login:` block): how a
// page shows that the session is gone, and where the runtime takes the
// macro's arguments from when it runs it on demand for another macro.
type Login struct {
	Pos Pos
	// Internal: the login only serves other macros; no model is offered it.
	Internal bool
	// SignedOut: any of these passing on a page means signed out.
	SignedOut []*Condition
	// SignedIn: all of these hold on a signed-in page.
	SignedIn []*Condition
	// Credentials: a parameter's value as an environment variable
	// (Env) or a literal, by parameter name, sorted.
	Credentials []*Credential
}

// Credential is where one login parameter's value comes from.
type Credential struct {
	Param   string
	Env     string // the variable of "{{ env.NAME }}"
	Literal string // a literal value (never for a secret parameter)
	Pos     Pos
}

// MaxLoginConditions bounds signed_out and signed_in: the runtime reads
// them on the pages of every macro that needs the session.
const MaxLoginConditions = 16

var loginKeys = []string{"internal", "signed_out", "signed_in", "credentials"}

// login reads the `login:` block.
func (p *parser) login(n *yaml.Node, path string) *Login {
	m := p.mapping(n, path, loginKeys)
	if m == nil {
		return nil
	}
	l := &Login{Pos: p.pos(n)}
	if v := m.get("internal"); v != nil {
		l.Internal, _ = p.boolean(v, m.sub("internal"))
	}
	if v := m.get("signed_out"); v != nil {
		l.SignedOut = p.conditions(v, m.sub("signed_out"))
	}
	if v := m.get("signed_in"); v != nil {
		l.SignedIn = p.conditions(v, m.sub("signed_in"))
	}
	if !m.has("signed_out") && !m.has("signed_in") {
		p.errf(n, path, "a login needs signed_out (conditions any one of which shows a signed-out page, e.g. [{url_matches: \"/login\"}]) or signed_in (conditions every signed-in page meets)")
	}
	if v := m.get("credentials"); v != nil {
		cm := p.mapping(v, m.sub("credentials"), nil)
		if cm != nil {
			for _, k := range cm.keys {
				cpath := cm.sub(k)
				t := p.template(cm.get(k), cpath)
				if t == nil {
					continue
				}
				c := &Credential{Param: k, Pos: t.Pos}
				switch r := t.Whole(); {
				case r != nil && r.Scope == RefEnv && len(r.Path) == 0:
					c.Env = r.Name
				case t.IsLiteral():
					c.Literal = t.Literal()
				default:
					p.errf(cm.get(k), cpath, "a credential is one environment variable (\"{{ env.NAME }}\") or a literal, got %q", t.Raw)
					continue
				}
				l.Credentials = append(l.Credentials, c)
			}
			sort.Slice(l.Credentials, func(i, j int) bool { return l.Credentials[i].Param < l.Credentials[j].Param })
		}
	}
	return l
}

// checkLogin checks the login block against the macro's parameters: its
// conditions are literal (they are read on other macros' pages, where this
// macro's parameters do not exist), and each credential names a parameter
// and is no literal secret.
func (c *checker) checkLogin() {
	l := c.s.Login
	if l == nil {
		return
	}
	for i, group := range [][]*Condition{l.SignedOut, l.SignedIn} {
		if len(group) > MaxLoginConditions {
			c.errf(group[MaxLoginConditions].Pos, group[MaxLoginConditions].path, "at most %d conditions: %s are read on every page of the macros the login serves", MaxLoginConditions, []string{"signed_out", "signed_in"}[i])
		}
		for _, cd := range group {
			for _, t := range []*Template{cd.Pattern, cd.Text, cd.Value, cd.URL} {
				if t != nil && !t.IsLiteral() {
					c.errf(t.Pos, cd.path, "a login's conditions are literal: they are checked on the pages of the macros it serves, where {{ }} has nothing to refer to")
				}
			}
			if cd.Kind == "list_count_delta" || cd.Kind == "request_succeeded" {
				c.errf(cd.Pos, cd.path, "%s describes what a step did; a login's conditions read a page as it is", cd.Kind)
			}
			if cd.Tab != "" {
				c.errf(cd.TabPos, cd.path, "a login's conditions read the page of the macro it serves; remove tab")
			}
		}
	}
	for _, cr := range l.Credentials {
		prop := c.params[cr.Param]
		path := "login.credentials." + cr.Param
		switch {
		case prop == nil:
			c.errf(cr.Pos, path, "no parameter %q%s", cr.Param, didYouMean(cr.Param, c.paramNames()))
		case prop.Secret && cr.Env == "":
			c.errf(cr.Pos, path, "a literal secret in a spec: use \"{{ env.NAME }}\", or the identity's credentials in macrokit.yaml")
		case prop.Type != nil && prop.Type.Kind != KindString:
			c.errf(cr.Pos, path, "a credential fills a string parameter; %s is %s", cr.Param, prop.Type)
		}
	}
}

// checkSession checks `session:` against the project: it names another
// macro, one with a login block and no session of its own.
func (c *checker) checkSession() {
	s := c.s
	if s.Session == "" || c.env == nil {
		return
	}
	if s.Session == s.Name {
		c.errf(s.SessionPos, "session", "a macro cannot provide its own session; name the login macro")
		return
	}
	p := c.env.lookup(s.Session)
	switch {
	case p == nil:
		c.errf(s.SessionPos, "session", "unknown macro %q%s", s.Session, didYouMean(s.Session, c.env.names))
	case p.Login == nil:
		c.errf(s.SessionPos, "session", "macro %s has no login block, so it provides no session: add login: {signed_out: [...]} to it", s.Session)
	case p.Session != "":
		c.errf(s.SessionPos, "session", "macro %s needs a session itself (session: %s); a login must sign in on its own", s.Session, p.Session)
	}
	if s.Login != nil {
		c.errf(s.SessionPos, "session", "a login macro signs in on its own: remove session (or the login block)")
	}
}
