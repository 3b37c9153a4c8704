package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/identity"
	"gopkg.in/yaml.v3"
)

// EnvIdentity names the identity calls run as when --identity does not.
const EnvIdentity = "MACROKIT_IDENTITY"

// DefaultIdentity is the identity of a deployment that names none.
const DefaultIdentity = "default"

// IdentitySettings are one identity of macrokit.yaml's `identities:`.
type IdentitySettings struct {
	// Credentials are the values its logins get, by parameter.
	Credentials map[string]CredentialValue `yaml:"credentials"`
}

// CredentialValue is a credential's source: a literal (a scalar), an
// environment variable ({env: NAME}) or a file ({file: PATH}, relative to
// the config file, its trailing newline trimmed).
type CredentialValue struct {
	Literal string
	Env     string
	File    string
}

// UnmarshalYAML reads a scalar or a {env: NAME} / {file: PATH} mapping.
func (v *CredentialValue) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		v.Literal = n.Value
		return nil
	case yaml.MappingNode:
		var m map[string]string
		if err := n.Decode(&m); err != nil {
			return err
		}
		v.Env, v.File = m["env"], m["file"]
		return nil
	}
	return fmt.Errorf("line %d: a credential is a value, {env: NAME} or {file: PATH}", n.Line)
}

// checkIdentities validates `identity:` and `identities:` (their shape is
// free-form, so the key walk of ParseConfig does not cover them).
func checkIdentities(fc *FileConfig, root *yaml.Node, add func(n *yaml.Node, key, format string, args ...any)) {
	if fc.Identity != "" {
		if err := identity.ValidName(fc.Identity); err != nil {
			add(findKey(root, "identity"), "identity", "%v", err)
		}
	}
	ids := findKey(root, "identities")
	if ids == nil {
		return
	}
	if ids.Kind != yaml.MappingNode {
		add(ids, "identities", "identities must be a mapping of identity names to {credentials: {...}}")
		return
	}
	for i := 0; i+1 < len(ids.Content); i += 2 {
		k, v := ids.Content[i], ids.Content[i+1]
		key := "identities." + k.Value
		if err := identity.ValidName(k.Value); err != nil {
			add(k, key, "%v", err)
		}
		if v.Kind != yaml.MappingNode {
			add(v, key, "an identity is a mapping with credentials")
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			ik, iv := v.Content[j], v.Content[j+1]
			if ik.Value != "credentials" {
				add(ik, key+"."+ik.Value, "unknown key%s (keys: credentials)", suggestKey(ik.Value, []string{"credentials"}))
				continue
			}
			if iv.Kind != yaml.MappingNode {
				add(iv, key+".credentials", "credentials must map login parameters to a value, {env: NAME} or {file: PATH}")
				continue
			}
			for c := 0; c+1 < len(iv.Content); c += 2 {
				ck, cv := iv.Content[c], iv.Content[c+1]
				ckey := key + ".credentials." + ck.Value
				switch cv.Kind {
				case yaml.ScalarNode:
				case yaml.MappingNode:
					if len(cv.Content) != 2 || (cv.Content[0].Value != "env" && cv.Content[0].Value != "file") {
						add(cv, ckey, "expected {env: NAME} or {file: PATH}%s", credentialHint(cv))
						continue
					}
					if cv.Content[0].Value == "env" && !envNameRE.MatchString(cv.Content[1].Value) {
						add(cv.Content[1], ckey, "not an environment variable name (letters, digits and _)")
					}
				default:
					add(cv, ckey, "expected a value, {env: NAME} or {file: PATH}")
				}
			}
		}
	}
}

func credentialHint(n *yaml.Node) string {
	if len(n.Content) >= 2 {
		return suggestKey(n.Content[0].Value, []string{"env", "file"})
	}
	return ""
}

// stateDir is the deployment's state directory: .macrokit beside
// macrokit.yaml, else in the working directory.
func stateDir(cfg *Config) string {
	if cfg.Settings != nil && cfg.Settings.File != "" {
		return filepath.Join(filepath.Dir(cfg.Settings.File), ".macrokit")
	}
	return ".macrokit"
}

// identityStore opens the deployment's identity store, sealed when
// MACROKIT_IDENTITY_KEY is set.
func identityStore(cfg *Config) (*identity.Store, error) {
	key, err := identity.KeyFromEnv(cfg.getenv)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	s, err := identity.Open(filepath.Join(stateDir(cfg), "identities"), key)
	if err != nil {
		return nil, Failf("%v", err)
	}
	return s, nil
}

// callIdentity is who a command's calls run as. name is --identity; else
// MACROKIT_IDENTITY, else macrokit.yaml's identity:. Named (or configured
// with identities:), the identity's state is kept in the store between
// runs; a deployment that names none runs as "default", kept in memory for
// the process (serve stays signed in while it runs; each run starts
// signed out), so no state file appears unasked.
func callIdentity(cfg *Config, name string) (*runtime.Identity, error) {
	return callIdentityIn(cfg, name, nil)
}

// callIdentityIn is callIdentity with the state kept in shared (a fleet's
// store) when it is not nil: every identity, "default" included, is then
// kept there, so workers share one login instead of one each.
func callIdentityIn(cfg *Config, name string, shared identity.Keeper) (*runtime.Identity, error) {
	var fc map[string]IdentitySettings
	def := ""
	if cfg.Settings != nil {
		fc, def = cfg.Settings.Identities, cfg.Settings.Identity
	}
	name = firstOf(name, cfg.getenv(EnvIdentity), def)
	if name == "" && len(fc) == 0 && shared == nil {
		return &runtime.Identity{Name: DefaultIdentity}, nil
	}
	name = firstOf(name, DefaultIdentity)
	if err := identity.ValidName(name); err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	id := &runtime.Identity{Name: name, Store: shared}
	if shared == nil {
		st, err := identityStore(cfg)
		if err != nil {
			return nil, err
		}
		id.Store = st
	}
	if is, ok := fc[name]; ok && len(is.Credentials) > 0 {
		base := "."
		if cfg.Settings != nil && cfg.Settings.File != "" {
			base = filepath.Dir(cfg.Settings.File)
		}
		id.Credentials = credentials(name, is.Credentials, base, cfg.getenv)
	}
	return id, nil
}

// credentials resolves an identity's credential values when a login asks
// for them; errors name the identity, the parameter and the source, never
// a value.
func credentials(name string, cs map[string]CredentialValue, base string, getenv func(string) string) func(string) (string, bool, error) {
	return func(param string) (string, bool, error) {
		c, ok := cs[param]
		if !ok {
			return "", false, nil
		}
		switch {
		case c.Env != "":
			v := getenv(c.Env)
			if v == "" {
				return "", false, fmt.Errorf("identities.%s.credentials.%s: the environment variable %s is not set", name, param, c.Env)
			}
			return v, true, nil
		case c.File != "":
			p := c.File
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return "", false, fmt.Errorf("identities.%s.credentials.%s: %v", name, param, err)
			}
			return strings.TrimRight(string(b), "\r\n"), true, nil
		}
		return c.Literal, true, nil
	}
}

// identityNames are the identities macrokit.yaml names, sorted.
func identityNames(cfg *Config) []string {
	var out []string
	if cfg.Settings != nil {
		for n := range cfg.Settings.Identities {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
