package mcpschema

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type in struct {
	Q string `json:"q"`
}

// live serves one read-only tool over streamable HTTP, counting listings.
func live(t *testing.T) (url string, lists *int, stop func()) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "look", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	n := 0
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { n++; return s }, nil)
	srv := httptest.NewServer(h)
	return srv.URL, &n, srv.Close
}

// TestSourceCacheFirst: a server without a cached copy is listed and the
// copy written; from then on the copy is read (the server may be gone);
// a refresh that cannot reach the server is an error that leaves the
// copy; a server neither reachable nor cached says how to get a copy.
func TestSourceCacheFirst(t *testing.T) {
	macros := t.TempDir()
	url, lists, stop := live(t)
	srv := map[string]mcpclient.Server{"t": {Name: "t", URL: url}}
	opts := mcpclient.Options{ConnectTimeout: 5 * time.Second}
	s := &Source{Macros: macros, Configured: srv, Write: true, Connect: opts}
	got, err := s.Server("t")
	if err != nil || len(got.Tools) != 1 || got.Tools[0].Name != "look" || got.Tools[0].Risk() != "read" {
		t.Fatalf("listed: %+v %v", got, err)
	}
	path := CachePath(macros, "t")
	cached, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if *lists == 0 {
		t.Fatal("the server was never asked")
	}
	stop()
	before := *lists
	again, err := (&Source{Macros: macros, Configured: srv, Connect: opts}).Server("t")
	if err != nil || again.Source != filepath.ToSlash(path) || len(again.Tools) != 1 || *lists != before {
		t.Fatalf("from the cache: %+v %v (%d listings)", again, err, *lists-before)
	}
	if _, err := (&Source{Macros: macros, Configured: srv, Refresh: true, Write: true, Connect: opts}).Server("t"); err == nil || !strings.Contains(err.Error(), "is unchanged") {
		t.Errorf("refresh of a stopped server: %v", err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(cached) {
		t.Error("a failed refresh changed the cached copy")
	}
	if _, err := (&Source{Macros: t.TempDir(), Configured: srv, Connect: opts}).Server("t"); err == nil || !strings.Contains(err.Error(), "there are no cached tool schemas at") {
		t.Errorf("neither reachable nor cached: %v", err)
	}
	if s, err := (&Source{Macros: macros, Configured: srv}).Server("other"); s != nil || err != nil {
		t.Errorf("an unconfigured server: %v %v", s, err)
	}
}
