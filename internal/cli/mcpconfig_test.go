package cli

import (
	"strings"
	"testing"
)

// TestParseConfigMCPServers: every problem of mcp_servers at its line and
// column, a literal credential refused without echoing it, and a good
// file's servers as the client takes them.
func TestParseConfigMCPServers(t *testing.T) {
	cases := []struct {
		name, yaml string
		errs       []string
	}{
		{"ok", `mcp_servers:
  tickets:
    url: https://mcp.example.com/mcp
    headers: {Authorization: {env: TICKETS_TOKEN, prefix: "Bearer "}, X-Team: platform}
  files:
    command: [npx, -y, server-files]
    env: {FILES_KEY: {env: MY_FILES_KEY}, MODE: ro}
    dir: tools
`, nil},
		{"not a mapping", "mcp_servers: [a]\n", []string{"x.yaml:1:14: mcp_servers: mcp_servers must be a mapping"}},
		{"bad name", "mcp_servers:\n  Tickets: {url: https://x.example}\n", []string{`x.yaml:2:3: mcp_servers.Tickets: server name "Tickets" must be`}},
		{"unknown key", "mcp_servers:\n  t: {url: https://x.example, header: {}}\n", []string{`x.yaml:2:31: mcp_servers.t.header: unknown key (did you mean "headers"?)`}},
		{"neither", "mcp_servers:\n  t: {dir: x}\n", []string{"x.yaml:2:3: mcp_servers.t: needs command", "env and dir apply to a command server"}},
		{"both", "mcp_servers:\n  t: {url: https://x.example, command: [x]}\n", []string{"has both command and url"}},
		{"bad url", "mcp_servers:\n  t: {url: ftp://x.example}\n", []string{`url: "ftp://x.example" is not an http or https URL`}},
		{"credentials in url", "mcp_servers:\n  t: {url: \"https://u:p@x.example\"}\n", []string{"credentials in the URL"}},
		{"command not a list", "mcp_servers:\n  t: {command: npx server}\n", []string{"x.yaml:2:16: mcp_servers.t.command: command is a list"}},
		{"literal token", "mcp_servers:\n  t:\n    url: https://x.example\n    headers: {Authorization: Bearer abc123}\n", []string{"x.yaml:4:30: mcp_servers.t.headers.Authorization: Authorization reads as a credential"}},
		{"literal secret env", "mcp_servers:\n  t: {command: [x], env: {API_KEY: hunter2}}\n", []string{"mcp_servers.t.env.API_KEY: API_KEY reads as a credential"}},
		{"bad env ref", "mcp_servers:\n  t: {command: [x], env: {A: {env: \"not a name\"}}}\n", []string{"mcp_servers.t.env.A.env: not an environment variable name"}},
		{"env ref typo", "mcp_servers:\n  t: {command: [x], env: {A: {evn: X}}}\n", []string{`mcp_servers.t.env.A.evn: unknown key (did you mean "env"?)`, "mcp_servers.t.env.A: expected a value or {env: NAME}"}},
		{"headers on a command", "mcp_servers:\n  t: {command: [x], headers: {A: b}}\n", []string{"headers apply to a url server"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fc, err := ParseConfig("x.yaml", []byte(c.yaml))
			if len(c.errs) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				s := fc.mcpServers("/etc/acme")
				if tk := s["tickets"]; tk.URL != "https://mcp.example.com/mcp" || tk.Headers["Authorization"].Env != "TICKETS_TOKEN" || tk.Headers["Authorization"].Prefix != "Bearer " || tk.Headers["X-Team"].Literal != "platform" {
					t.Errorf("tickets: %+v", tk)
				}
				if f := s["files"]; strings.Join(f.Command, " ") != "npx -y server-files" || f.Dir != "/etc/acme/tools" || f.Env["FILES_KEY"].Env != "MY_FILES_KEY" || f.Env["MODE"].Literal != "ro" {
					t.Errorf("files: %+v", f)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.errs)
			}
			for _, want := range c.errs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("errors:\n%s\nwant %q", err, want)
				}
			}
			for _, secret := range []string{"abc123", "hunter2"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error echoes the credential: %s", err)
				}
			}
		})
	}
}

// FuzzParseConfigMCPServers: no input panics ParseConfig.
func FuzzParseConfigMCPServers(f *testing.F) {
	f.Add("mcp_servers:\n  t: {url: https://x.example, headers: {A: {env: B}}}\n")
	f.Add("mcp_servers:\n  t: {command: [x, y], env: {A: {env: B, prefix: p}}, dir: d}\n")
	f.Add("mcp_servers: {t: {command: [], env: [1], headers: 3}}\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseConfig("x.yaml", []byte(s))
	})
}
