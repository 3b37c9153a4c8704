package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/vocab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultConnectTimeout bounds starting or reaching a server and its
// first tool listing, within the caller's context.
const DefaultConnectTimeout = 30 * time.Second

// inherited are the only variables of the deployment's environment a
// stdio server process gets (beyond its configured env).
var inherited = []string{"PATH", "HOME", "USER", "LANG", "TMPDIR"}

// Pool is a runtime.MCPClient over the configured servers: one session per
// server, opened on first use and kept until Close.
type Pool struct {
	// Servers are the configured servers by name.
	Servers map[string]Server
	// Getenv reads the {env: NAME} values (nil: os.Getenv).
	Getenv func(string) string
	// Version is the client version the servers see (default "dev").
	Version string
	// HTTPClient carries the requests to URL servers (nil: a client
	// without a timeout: calls are bounded by their context).
	HTTPClient *http.Client
	// ConnectTimeout bounds connecting (0: DefaultConnectTimeout).
	ConnectTimeout time.Duration

	mu     sync.Mutex
	conns  map[string]*conn
	closed bool
}

// conn is one server's session and its tools, opened once; mu serializes
// connecting so concurrent first calls start one process.
type conn struct {
	mu    sync.Mutex
	sess  *mcp.ClientSession
	tools map[string]*mcp.Tool
}

var _ runtime.MCPClient = (*Pool)(nil)

func (p *Pool) getenv(name string) string {
	if p.Getenv != nil {
		return p.Getenv(name)
	}
	return os.Getenv(name)
}

func (p *Pool) conn(server string) (*conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, &runtime.MCPError{Code: runtime.MCPUnavailable, Server: server, Msg: "the MCP client is closed"}
	}
	if _, ok := p.Servers[server]; !ok {
		return nil, &runtime.MCPError{Code: runtime.MCPNotConfigured, Server: server, Msg: fmt.Sprintf("no MCP server %q in this deployment's configuration (mcp_servers: %s)", server, strings.Join(p.names(), ", "))}
	}
	if p.conns == nil {
		p.conns = map[string]*conn{}
	}
	c := p.conns[server]
	if c == nil {
		c = &conn{}
		p.conns[server] = c
	}
	return c, nil
}

func (p *Pool) names() []string {
	var out []string
	for n := range p.Servers {
		out = append(out, n)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// session returns the server's session and tools, connecting first when
// there is none.
func (p *Pool) session(ctx context.Context, server string) (*mcp.ClientSession, map[string]*mcp.Tool, error) {
	c, err := p.conn(server)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != nil {
		return c.sess, c.tools, nil
	}
	sess, tools, err := Connect(ctx, p.Servers[server], p.opts())
	if err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		_ = sess.Close()
		return nil, nil, &runtime.MCPError{Code: runtime.MCPUnavailable, Server: server, Msg: "the MCP client is closed"}
	}
	c.sess, c.tools = sess, map[string]*mcp.Tool{}
	for _, t := range tools {
		c.tools[t.Name] = t
	}
	return c.sess, c.tools, nil
}

// drop forgets a session the server ended, so the next call reconnects.
func (p *Pool) drop(server string, sess *mcp.ClientSession) {
	c, err := p.conn(server)
	if err != nil {
		return
	}
	c.mu.Lock()
	if c.sess == sess {
		c.sess, c.tools = nil, nil
	}
	c.mu.Unlock()
	_ = sess.Close()
}

func (p *Pool) opts() Options {
	return Options{Getenv: p.getenv, Version: p.Version, HTTPClient: p.HTTPClient, ConnectTimeout: p.ConnectTimeout}
}

// Tool describes a tool of a server from the listing its session started
// with.
func (p *Pool) Tool(ctx context.Context, server, tool string) (*runtime.MCPTool, error) {
	_, tools, err := p.session(ctx, server)
	if err != nil {
		return nil, err
	}
	t := tools[tool]
	if t == nil {
		var names []string
		for n := range tools {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, &runtime.MCPError{Code: runtime.MCPUnknownTool, Server: server, Tool: tool, Msg: fmt.Sprintf("the server lists no tool %q (tools: %s)", tool, strings.Join(names, ", "))}
	}
	return &runtime.MCPTool{Name: t.Name, Risk: Risk(t)}, nil
}

// CallTool calls a tool; a session the server closed is reopened once
// (the call never reached it).
func (p *Pool) CallTool(ctx context.Context, server, tool string, args map[string]any) (*runtime.MCPResult, error) {
	for attempt := 0; ; attempt++ {
		sess, _, err := p.session(ctx, server)
		if err != nil {
			return nil, err
		}
		if args == nil {
			args = map[string]any{}
		}
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			if errors.Is(err, mcp.ErrConnectionClosed) {
				p.drop(server, sess)
				if attempt == 0 && ctx.Err() == nil {
					continue
				}
				return nil, &runtime.MCPError{Code: runtime.MCPUnavailable, Server: server, Tool: tool, Msg: "the server closed the session", Err: err}
			}
			return nil, &runtime.MCPError{Code: runtime.MCPProtocol, Server: server, Tool: tool, Msg: err.Error(), Err: err}
		}
		return result(res)
	}
}

// result turns the SDK's result into the runtime's.
func result(res *mcp.CallToolResult) (*runtime.MCPResult, error) {
	out := &runtime.MCPResult{IsError: res.IsError}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, err
		}
		out.Structured = b
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	out.Text = strings.Join(texts, "\n")
	return out, nil
}

// Close ends every session (stopping the server processes); calls after
// it fail mcp_unavailable.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	var errs []error
	for _, c := range conns {
		c.mu.Lock()
		if c.sess != nil {
			if err := c.sess.Close(); err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
				errs = append(errs, err)
			}
			c.sess = nil
		}
		c.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Risk is a tool's risk from its annotations (vocab.ToolRisk).
func Risk(t *mcp.Tool) runtime.Risk {
	if t.Annotations == nil {
		return runtime.Risk(vocab.ToolRisk(false, nil))
	}
	return runtime.Risk(vocab.ToolRisk(t.Annotations.ReadOnlyHint, t.Annotations.DestructiveHint))
}

// Options are what Connect needs beyond the server.
type Options struct {
	Getenv         func(string) string // nil: os.Getenv
	Version        string
	HTTPClient     *http.Client
	ConnectTimeout time.Duration
}

// Connect starts or reaches s, initializes a session and lists its tools
// (every page), all within ctx and the connect timeout.
func Connect(ctx context.Context, s Server, o Options) (*mcp.ClientSession, []*mcp.Tool, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	d := o.ConnectTimeout
	if d <= 0 {
		d = DefaultConnectTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	unavailable := func(format string, args ...any) error {
		return &runtime.MCPError{Code: runtime.MCPUnavailable, Server: s.Name, Msg: fmt.Sprintf(format, args...)}
	}
	var t mcp.Transport
	var stderr *tail
	var secrets []string // the configured values, kept out of an error's stderr tail
	switch {
	case len(s.Command) > 0:
		// Not exec.CommandContext: the process outlives the call that
		// started it and ends with the session (Close).
		cmd := exec.Command(s.Command[0], s.Command[1:]...)
		cmd.Dir = s.Dir
		for _, k := range inherited {
			if v, ok := os.LookupEnv(k); ok {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		keys := sortedKeys(s.Env)
		for _, k := range keys {
			v, err := s.Env[k].resolve(o.Getenv)
			if err != nil {
				return nil, nil, &runtime.MCPError{Code: runtime.MCPUnavailable, Server: s.Name, Msg: fmt.Sprintf("env %s: %v", k, err), Err: err}
			}
			cmd.Env = append(cmd.Env, k+"="+v)
			secrets = append(secrets, v)
		}
		stderr = &tail{max: 2048}
		cmd.Stderr = stderr
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	case s.URL != "":
		headers := http.Header{}
		for _, k := range sortedKeys(s.Headers) {
			v, err := s.Headers[k].resolve(o.Getenv)
			if err != nil {
				return nil, nil, &runtime.MCPError{Code: runtime.MCPUnavailable, Server: s.Name, Msg: fmt.Sprintf("header %s: %v", k, err), Err: err}
			}
			headers.Set(k, v)
		}
		base := o.HTTPClient
		if base == nil {
			base = &http.Client{}
		}
		hc := *base
		rt := hc.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		hc.Transport = headerTransport{rt, headers}
		t = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: &hc, MaxRetries: -1, DisableStandaloneSSE: true}
	default:
		return nil, nil, unavailable("neither command nor url is configured")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "macrokit", Version: o.Version}, nil)
	sess, err := client.Connect(ctx, t, nil)
	if err != nil {
		msg := err.Error()
		if tail := stderr.String(); tail != "" {
			// A server may print its configuration: the values it was
			// given, and anything that looks like a credential, are cut.
			msg += "; its stderr: " + redact.String(tail, append(secrets, redact.Credentials(tail)...))
		}
		return nil, nil, &runtime.MCPError{Code: runtime.MCPUnavailable, Server: s.Name, Msg: "cannot connect: " + msg, Err: err}
	}
	var tools []*mcp.Tool
	for tool, err := range sess.Tools(ctx, nil) {
		if err != nil {
			_ = sess.Close()
			return nil, nil, &runtime.MCPError{Code: runtime.MCPUnavailable, Server: s.Name, Msg: "cannot list its tools: " + err.Error(), Err: err}
		}
		tools = append(tools, tool)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return sess, tools, nil
}

// ListTools connects to s, lists its tools and disconnects: what
// `macrokit generate` caches.
func ListTools(ctx context.Context, s Server, o Options) ([]*mcp.Tool, error) {
	sess, tools, err := Connect(ctx, s, o)
	if err != nil {
		return nil, err
	}
	_ = sess.Close()
	return tools, nil
}

func sortedKeys(m map[string]Value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	rt http.RoundTripper
	h  http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.rt.RoundTrip(r)
}

// tail keeps the last max bytes written to it (a server's stderr, for a
// failed start's message).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
