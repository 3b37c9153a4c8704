package cli

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/mcpclient"
	"gopkg.in/yaml.v3"
)

// MCPServerSettings are one entry of macrokit.yaml mcp_servers: the MCP
// server an mcp step names, as a command speaking MCP on stdio or the URL
// of a streamable HTTP endpoint (docs/deploy.md "MCP servers").
type MCPServerSettings struct {
	Command []string            `yaml:"command"`
	Env     map[string]MCPValue `yaml:"env"`
	Dir     string              `yaml:"dir"`
	URL     string              `yaml:"url"`
	Headers map[string]MCPValue `yaml:"headers"`
}

// MCPValue is a header or variable value: a literal, or {env: NAME} (with
// an optional prefix, e.g. "Bearer ") read from the environment when the
// server is connected.
type MCPValue struct {
	Literal string
	Env     string
	Prefix  string
}

// UnmarshalYAML reads a scalar or {env, prefix}; checkMCPServers has
// reported any other shape with its position already.
func (v *MCPValue) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		v.Literal = n.Value
		return nil
	}
	var m struct {
		Env    string `yaml:"env"`
		Prefix string `yaml:"prefix"`
	}
	if err := n.Decode(&m); err != nil {
		return err
	}
	v.Env, v.Prefix = m.Env, m.Prefix
	return nil
}

// mcpServerKeys are the keys of one server; mcpValueKeys of an {env} value.
var (
	mcpServerKeys = []string{"command", "env", "dir", "url", "headers"}
	mcpValueKeys  = []string{"env", "prefix"}
)

// checkMCPServers reports every problem of mcp_servers: at its position:
// names, unknown keys (did you mean), shapes, a command and a URL (or
// neither), a URL that is not http(s) or carries credentials, and a
// literal credential (a header or variable whose name reads as one must
// come from the environment: the file is committed and printed).
func checkMCPServers(root *yaml.Node, add func(n *yaml.Node, key, format string, args ...any)) {
	srvs := findKey(root, "mcp_servers")
	if srvs == nil {
		return
	}
	if srvs.Kind != yaml.MappingNode {
		add(srvs, "mcp_servers", "mcp_servers must be a mapping of server names to {command: [...]} or {url: ...}")
		return
	}
	for i := 0; i+1 < len(srvs.Content); i += 2 {
		k, v := srvs.Content[i], srvs.Content[i+1]
		key := "mcp_servers." + k.Value
		if !mcpclient.NameRE.MatchString(k.Value) {
			add(k, key, "server name %q must be a lower-case letter, then lower-case letters, digits, '_' or '-' (at most 64): specs name it in mcp: {server: ...}", k.Value)
		}
		if v.Kind != yaml.MappingNode {
			add(v, key, "a server is a mapping: {command: [program, args...]} or {url: https://...}")
			continue
		}
		var s mcpclient.Server
		for j := 0; j+1 < len(v.Content); j += 2 {
			sk, sv := v.Content[j], v.Content[j+1]
			skey := key + "." + sk.Value
			switch sk.Value {
			case "command":
				if sv.Kind != yaml.SequenceNode || len(sv.Content) == 0 {
					add(sv, skey, "command is a list: [program, args...]")
					continue
				}
				for _, a := range sv.Content {
					if a.Kind != yaml.ScalarNode {
						add(a, skey, "every element of command is a string")
					}
					s.Command = append(s.Command, a.Value)
				}
			case "url":
				if sv.Kind != yaml.ScalarNode {
					add(sv, skey, "url is a string")
					continue
				}
				s.URL = sv.Value
			case "dir":
				if sv.Kind != yaml.ScalarNode {
					add(sv, skey, "dir is a path")
					continue
				}
				s.Dir = sv.Value
			case "env", "headers":
				vals := checkMCPValues(sv, skey, sk.Value, add)
				if sk.Value == "env" {
					s.Env = vals
				} else {
					s.Headers = vals
				}
			default:
				add(sk, skey, "unknown key%s (keys: %s)", suggestKey(sk.Value, mcpServerKeys), strings.Join(mcpServerKeys, ", "))
			}
		}
		for _, msg := range s.Check() {
			add(k, key, "%s", msg)
		}
	}
}

// checkMCPValues checks an env or headers mapping.
func checkMCPValues(n *yaml.Node, key, what string, add func(n *yaml.Node, key, format string, args ...any)) map[string]mcpclient.Value {
	if n.Kind != yaml.MappingNode {
		add(n, key, "%s maps names to a value or {env: NAME}", what)
		return nil
	}
	out := map[string]mcpclient.Value{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		vkey := key + "." + k.Value
		if what == "env" && !envNameRE.MatchString(k.Value) {
			add(k, vkey, "not an environment variable name (letters, digits and _)")
		}
		if what == "headers" && !headerNameRE.MatchString(k.Value) {
			add(k, vkey, "not an HTTP header name")
		}
		switch v.Kind {
		case yaml.ScalarNode:
			if mcpclient.Secretish(k.Value) && v.Value != "" {
				// Not echoed: what was written there may be the credential.
				add(v, vkey, "%s reads as a credential: take it from the environment, {env: NAME} (with prefix: \"Bearer \" for a token), never a literal in this file", k.Value)
			}
			out[k.Value] = mcpclient.Value{Literal: v.Value}
		case yaml.MappingNode:
			val := mcpclient.Value{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				ek, ev := v.Content[j], v.Content[j+1]
				switch ek.Value {
				case "env":
					if !envNameRE.MatchString(ev.Value) {
						add(ev, vkey+".env", "not an environment variable name (letters, digits and _)")
					}
					val.Env = ev.Value
				case "prefix":
					val.Prefix = ev.Value
				default:
					add(ek, vkey+"."+ek.Value, "unknown key%s (keys: %s)", suggestKey(ek.Value, mcpValueKeys), strings.Join(mcpValueKeys, ", "))
				}
			}
			if val.Env == "" {
				add(v, vkey, "expected a value or {env: NAME}")
			}
			out[k.Value] = val
		default:
			add(v, vkey, "expected a value or {env: NAME}")
		}
	}
	return out
}

// mcpServers are the file's servers as the client takes them; a relative
// dir is relative to the config file's directory, which is also the
// default.
func (fc *FileConfig) mcpServers(configDir string) map[string]mcpclient.Server {
	if len(fc.MCPServers) == 0 {
		return nil
	}
	out := make(map[string]mcpclient.Server, len(fc.MCPServers))
	for name, s := range fc.MCPServers {
		srv := mcpclient.Server{Name: name, Command: s.Command, URL: s.URL, Dir: s.Dir}
		if len(s.Command) > 0 {
			switch {
			case srv.Dir == "":
				srv.Dir = configDir
			case !filepath.IsAbs(srv.Dir):
				srv.Dir = filepath.Join(configDir, srv.Dir)
			}
		}
		srv.Env, srv.Headers = values(s.Env), values(s.Headers)
		out[name] = srv
	}
	return out
}

func values(m map[string]MCPValue) map[string]mcpclient.Value {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]mcpclient.Value, len(m))
	for k, v := range m {
		out[k] = mcpclient.Value{Literal: v.Literal, Env: v.Env, Prefix: v.Prefix}
	}
	return out
}

// headerNameRE matches an HTTP header name (a token).
var headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
