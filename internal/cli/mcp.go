package cli

import (
	"context"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/internal/mcpschema"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/mcpclient"
	"github.com/macrokit/macrokit-go/spec"
)

// mcpListTimeout bounds listing one server's tools at generate time.
const mcpListTimeout = 15 * time.Second

// mcpSource is what generate, check and lint know of the MCP servers: the
// configured ones (macrokit.yaml mcp_servers:) and those whose tools are
// cached beside the specs (<macros>/.mcp/<server>.json), so a checkout
// without the deployment's configuration generates the same code.
func mcpSource(env *Env, o SpecOptions) (spec.MCPSource, error) {
	servers, err := mcpschema.Cached(o.Macros)
	if err != nil {
		return nil, Failf("%v", err)
	}
	if servers == nil {
		servers = map[string]mcpclient.Server{}
	}
	opts := mcpclient.Options{ConnectTimeout: mcpListTimeout}
	if env.Config != nil {
		opts.Getenv, opts.Version = env.Config.getenv, env.Config.Version
		if env.Config.Settings != nil {
			for n, s := range env.Config.Settings.MCPServers {
				servers[n] = s
			}
		}
	}
	return &mcpschema.Source{Macros: o.Macros, Configured: servers, Refresh: o.MCPRefresh, Write: o.MCPWrite,
		Connect: opts, Notes: env.Stderr}, nil
}

// lazyMCP is the MCP client of every command that runs macros: a
// mcpclient.Pool over the configured servers, made on the first mcp step
// (the settings are read by then) and closed when the command ends.
type lazyMCP struct {
	cfg  *Config
	once sync.Once
	pool *mcpclient.Pool
	mu   sync.Mutex
	done bool
}

var _ runtime.MCPClient = (*lazyMCP)(nil)

func (l *lazyMCP) get() *mcpclient.Pool {
	l.once.Do(func() {
		p := &mcpclient.Pool{Getenv: l.cfg.getenv, Version: l.cfg.Version}
		if l.cfg.Settings != nil {
			p.Servers = l.cfg.Settings.MCPServers
		}
		l.mu.Lock()
		if l.done {
			_ = p.Close()
		}
		l.pool = p
		l.mu.Unlock()
	})
	return l.pool
}

// Tool implements runtime.MCPClient.
func (l *lazyMCP) Tool(ctx context.Context, server, tool string) (*runtime.MCPTool, error) {
	return l.get().Tool(ctx, server, tool)
}

// CallTool implements runtime.MCPClient.
func (l *lazyMCP) CallTool(ctx context.Context, server, tool string, args map[string]any) (*runtime.MCPResult, error) {
	return l.get().CallTool(ctx, server, tool, args)
}

// Close ends the sessions the command opened and stops their servers.
func (l *lazyMCP) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	if l.pool == nil {
		return nil
	}
	return l.pool.Close()
}
