package spec

// totp reads a totp step: {secret: "{{ totp_secret }}", into: code}.
func (p *parser) totp(m *mapping) *TOTP {
	t := &TOTP{Pos: p.pos(m.node)}
	m.require("secret", "into")
	if n := m.get("secret"); n != nil {
		t.SecretPos = p.pos(resolve(n))
		t.Secret = p.template(n, m.sub("secret"))
	}
	if n := m.get("into"); n != nil {
		t.Into, t.IntoPos = p.varName(n, m.sub("into"))
	}
	return t
}

// totp checks a totp step: its secret is exactly one secret parameter or
// environment variable (a literal seed in a spec is a leaked second
// factor), and the code it makes is a secret string.
func (c *checker) totp(t *TOTP, sc *scope, path string) []pending {
	if t == nil {
		return nil
	}
	spath := join(path, "secret")
	if t.Secret != nil {
		c.text(t.Secret, sc, spath, "a TOTP secret")
		r := t.Secret.Whole()
		ok := r != nil && len(r.Path) == 0 && (r.Scope == RefEnv || (r.Scope == RefParam && c.params[r.Name] != nil && c.params[r.Name].Secret))
		if !ok {
			c.errf(t.SecretPos, spath, "a TOTP secret must come from a secret parameter (secret: true) or the environment ({{ env.NAME }}), as one reference")
		}
	}
	if t.Into == "" {
		return nil
	}
	return []pending{{t.Into, t.IntoPos, join(path, "into"), Scalar(KindString), true}}
}
