package spec

import (
	"regexp"
)

// credentialEnvName is an environment variable whose name says it holds a
// credential.
var credentialEnvName = regexp.MustCompile(`(?i)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIAL|AUTH|SESSION|COOKIE)`)

// envInPageURL refuses environment values in a page URL other than a
// site's base URL at its start: the engine records the URL it went to,
// the CLI prints it, the session log keeps it and the browser holds it in
// its history, so `?api_key={{ env.API_KEY }}` would put the key in clear
// everywhere (an http step sends it in a header, which nothing records).
// The runtime redacts such values too (runtime.Exec), but a spec should
// not depend on it.
func (c *checker) envInPageURL(t *Template, path string) {
	if t == nil {
		return
	}
	for i, p := range t.Parts {
		r := p.Ref
		if r == nil || r.Scope != RefEnv {
			continue
		}
		switch {
		case i > 0:
			c.errf(r.Pos, path, "%s puts an environment value into a page URL, which is printed, logged, traced and kept in the browser's history in clear: "+
				"only a site's base URL may come from the environment, at the start of the URL; send a key or token from an http step header "+
				"(headers: {Authorization: \"Bearer {{ env.%s }}\"}), or take it as a secret parameter and fill it into the page", r, r.Name)
		case credentialEnvName.MatchString(r.Name):
			c.errf(r.Pos, path, "%s reads like a credential and starts a page URL, which is printed, logged, traced and kept in the browser's history in clear: "+
				"only a site's base URL may come from the environment here; send the credential from an http step header instead", r)
		}
	}
}
