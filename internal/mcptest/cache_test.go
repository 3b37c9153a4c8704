package mcptest_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/macrokit/macrokit-go/internal/cli"
	"github.com/macrokit/macrokit-go/internal/mcpschema"
	"github.com/macrokit/macrokit-go/runtime/mcpclient"
)

var update = flag.Bool("update", false, "rewrite macros.d/.mcp/*.json from the live servers")

// checkCache lists a live server's tools and requires the committed cache
// to be exactly what generate would write (-update writes it).
func checkCache(t *testing.T, name string, srv mcpclient.Server) {
	t.Helper()
	tools, err := mcpclient.ListTools(context.Background(), srv, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := mcpclient.EncodeSchemas(name, tools)
	if err != nil {
		t.Fatal(err)
	}
	path := mcpschema.CachePath("macros.d", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the server lists now: run go test ./internal/mcptest -run TestSchemasCached -update\n%s", path, got)
	}
}

func TestSchemasCachedTickets(t *testing.T) {
	checkCache(t, "tickets", mcpclient.Server{Name: "tickets", URL: serveHTTP(t, newTicketServer(&tickets{}))})
}

// TestGeneratedUpToDate: generated/ is what `macrokit generate` makes of
// macros.d/ with the cached schemas, offline.
func TestGeneratedUpToDate(t *testing.T) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"macrokit", "generate", "--check", "--macros", "macros.d", "--out", "generated"}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("generate --check: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
