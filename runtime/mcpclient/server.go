package mcpclient

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Server is one configured MCP server: a command speaking MCP on its
// stdin and stdout, or the URL of a streamable HTTP endpoint.
type Server struct {
	Name string
	// Command is the program and its arguments (stdio).
	Command []string
	// Env is the server process's environment beyond the few variables it
	// inherits (PATH, HOME, USER, LANG, TMPDIR): nothing else of the
	// deployment's environment reaches it.
	Env map[string]Value
	// Dir is the process's working directory ("": the current one).
	Dir string
	// URL is the streamable HTTP endpoint.
	URL string
	// Headers are sent with every HTTP request (e.g. Authorization).
	Headers map[string]Value
}

// Value is a configured string: a literal, or an environment variable
// read when the server is connected (with an optional prefix, for
// "Bearer " tokens).
type Value struct {
	Literal string
	Env     string
	Prefix  string
}

// resolve reads v; an unset variable is an *UnsetEnvError.
func (v Value) resolve(getenv func(string) string) (string, error) {
	if v.Env == "" {
		return v.Literal, nil
	}
	s := getenv(v.Env)
	if s == "" {
		return "", &UnsetEnvError{Name: v.Env}
	}
	return v.Prefix + s, nil
}

// UnsetEnvError is an {env: NAME} value whose variable is unset or empty
// when the server is connected: the cause of the mcp_unavailable
// MCPError, so callers can tell which variable to set without reading the
// message. Nothing is sent to the server.
type UnsetEnvError struct {
	Name string
}

func (e *UnsetEnvError) Error() string { return "environment variable " + e.Name + " is not set" }

// NameRE is a server's name: it is written in specs (mcp: {server: NAME})
// and names its cached schema file.
var NameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// Check reports what is wrong with s ("" when nothing): exactly one of
// Command and URL, an http(s) URL, header and variable names.
func (s Server) Check() []string {
	var out []string
	switch {
	case len(s.Command) == 0 && s.URL == "":
		out = append(out, "needs command (a stdio server: [program, args...]) or url (a streamable HTTP endpoint)")
	case len(s.Command) > 0 && s.URL != "":
		out = append(out, "has both command and url: a server is one or the other")
	}
	if len(s.Command) > 0 && strings.TrimSpace(s.Command[0]) == "" {
		out = append(out, "command: the program is empty")
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			out = append(out, fmt.Sprintf("url: %q is not an http or https URL", s.URL))
		} else if u.User != nil {
			out = append(out, "url: credentials in the URL end up in logs; send them in a header from the environment ({env: NAME})")
		}
	}
	if s.URL == "" && len(s.Headers) > 0 {
		out = append(out, "headers apply to a url server; a command server takes env")
	}
	if len(s.Command) == 0 && (len(s.Env) > 0 || s.Dir != "") {
		out = append(out, "env and dir apply to a command server; a url server takes headers")
	}
	return out
}

// Secretish reports whether a header or variable name reads as a
// credential, whose value must come from the environment, not the file.
func Secretish(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"authorization", "cookie", "token", "secret", "password", "passwd", "key", "auth", "credential", "bearer", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
