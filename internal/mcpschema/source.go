package mcpschema

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/internal/atomicfile"
	"github.com/macrokit/macrokit-go/runtime/mcpclient"
	"github.com/macrokit/macrokit-go/spec"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CacheDir is the directory, inside the macros directory, of the cached
// tool schemas; LoadDir skips it (its name starts with a dot).
const CacheDir = ".mcp"

// CachePath is where the tools of server are cached for the macros in dir.
func CachePath(macros, server string) string {
	return filepath.Join(macros, CacheDir, server+".json")
}

// Source is a spec.MCPSource over the configured servers and their cache.
type Source struct {
	// Macros is the macros directory the cache is beside.
	Macros string
	// Shown is how messages name that directory ("": Macros).
	Shown string
	// Configured are the configured servers by name.
	Configured map[string]mcpclient.Server
	// Refresh lists every server from the server itself even when a copy
	// is cached (generate --mcp-refresh).
	Refresh bool
	// Write writes what was listed to the cache (generate, not check).
	Write bool
	// Ctx bounds listing (nil: context.Background).
	Ctx context.Context
	// Connect configures listing (the environment, the timeout).
	Connect mcpclient.Options
	// Notes receives a line per server listed or cache written (nil: none).
	Notes io.Writer
}

var _ spec.MCPSource = (*Source)(nil)

// Servers returns the configured servers' names, sorted.
func (s *Source) Servers() []string {
	out := make([]string, 0, len(s.Configured))
	for n := range s.Configured {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Server returns the tools of a configured server (nil for another name):
// the cached copy unless Refresh, else the server's own listing (written
// to the cache when Write). A server that cannot be listed and has no copy
// is an error that says how to get one.
func (s *Source) Server(name string) (*spec.MCPServer, error) {
	srv, ok := s.Configured[name]
	if !ok {
		return nil, nil
	}
	if srv.Name == "" {
		srv.Name = name
	}
	path := CachePath(s.Macros, name)
	shown := path
	if s.Shown != "" {
		shown = CachePath(s.Shown, name)
	}
	cached, cerr := readCache(path, shown)
	if cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
		return nil, cerr
	}
	if cached != nil && !s.Refresh {
		return cached, nil
	}
	if len(srv.Command) == 0 && srv.URL == "" {
		// Known from its cache only (a corpus of specs without a config).
		return nil, fmt.Errorf("no cached tool schemas at %s and no command or url to list them from", filepath.ToSlash(shown))
	}
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	tools, err := mcpclient.ListTools(ctx, srv, s.Connect)
	if err != nil {
		if cached == nil {
			return nil, fmt.Errorf("cannot list its tools (%v) and there are no cached tool schemas at %s: start the server and run `macrokit generate`, which caches them there (commit the file)", err, filepath.ToSlash(shown))
		}
		return nil, fmt.Errorf("--mcp-refresh: cannot list its tools: %v (the cached copy %s is unchanged)", err, filepath.ToSlash(shown))
	}
	data, err := mcpclient.EncodeSchemas(name, tools)
	if err != nil {
		return nil, err
	}
	s.note("mcp: %s: %d tool(s) listed from the server", name, len(tools))
	if s.Write {
		old, _ := os.ReadFile(path)
		if !bytes.Equal(old, data) {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, err
			}
			if err := atomicfile.WriteBytes(path, 0o644, data); err != nil {
				return nil, err
			}
			s.note("mcp: wrote %s", filepath.ToSlash(shown))
		}
	}
	return decode(shown, data)
}

func (s *Source) note(format string, args ...any) {
	if s.Notes != nil {
		fmt.Fprintf(s.Notes, format+"\n", args...)
	}
}

func readCache(path, shown string) (*spec.MCPServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decode(shown, data)
}

// decode reads a cache file's tools as the checker's.
func decode(path string, data []byte) (*spec.MCPServer, error) {
	f, err := mcpclient.DecodeSchemas(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.ToSlash(path), err)
	}
	out := &spec.MCPServer{Name: f.Server, Source: filepath.ToSlash(path)}
	for _, t := range f.Tools {
		st, err := specTool(t)
		if err != nil {
			return nil, fmt.Errorf("%s: tool %s: %v", filepath.ToSlash(path), t.Name, err)
		}
		out.Tools = append(out.Tools, st)
	}
	return out, nil
}

func specTool(t *mcp.Tool) (*spec.MCPTool, error) {
	st := &spec.MCPTool{Name: t.Name, Description: t.Description}
	var err error
	if st.InputSchema, err = object(t.InputSchema); err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	if st.OutputSchema, err = object(t.OutputSchema); err != nil {
		return nil, fmt.Errorf("outputSchema: %v", err)
	}
	if a := t.Annotations; a != nil {
		st.ReadOnly, st.Destructive = a.ReadOnlyHint, a.DestructiveHint
	}
	return st, nil
}

// object is a schema as decoded JSON (nil when absent).
func object(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(b)) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	return m, nil
}

// Cached lists the servers that have a cached copy beside the macros, as
// servers known only from it: for checking a corpus of specs without a
// deployment configuration (the golden tests).
func Cached(macros string) (map[string]mcpclient.Server, error) {
	ents, err := os.ReadDir(filepath.Join(macros, CacheDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]mcpclient.Server{}
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			out[n] = mcpclient.Server{Name: n}
		}
	}
	return out, nil
}
