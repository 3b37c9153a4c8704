package mcptest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// envStdio makes the test binary serve the ticket tools on stdio instead
// of running tests (the stdio server's process).
const envStdio = "MCPTEST_STDIO"

// testToken is the close tool's credential.
const testToken = "s3cret-ticket-token"

// envRequireKey makes the stdio server refuse to start unless
// TICKETS_API_KEY is stdioKey: a credential it gets only through its
// configured env.
const envRequireKey = "MCPTEST_STRICT"

// stdioKey is the stdio server's credential.
const stdioKey = "k3y-for-the-stdio-tickets"

func TestMain(m *testing.M) {
	if os.Getenv(envStdio) == "1" {
		if os.Getenv(envRequireKey) == "1" && os.Getenv("TICKETS_API_KEY") != stdioKey {
			fmt.Fprintln(os.Stderr, "TICKETS_API_KEY is not this server's key")
			os.Exit(3)
		}
		if err := newTicketServer(&tickets{}).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// tickets counts what the server did: its side effects.
type tickets struct {
	searches, closes, sessions atomic.Int64
	lastToken                  atomic.Value
}

type ticket struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

type searchIn struct {
	Query string `json:"query" jsonschema:"the text to look for"`
	Limit int    `json:"limit,omitempty"`
}

type searchOut struct {
	Tickets []ticket `json:"tickets"`
	Total   int      `json:"total"`
	// Served is how many searches this server process has answered: a
	// reused session answers 2 on its second call.
	Served int64 `json:"served"`
}

type closeIn struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

type closeOut struct {
	Closed bool `json:"closed"`
}

var all = []ticket{{"T-1", "login page is slow"}, {"T-2", "login fails on Safari"}, {"T-3", "export button missing"}}

func newTicketServer(tk *tickets) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "tickets", Version: "v1"}, &mcp.ServerOptions{
		InitializedHandler: func(context.Context, *mcp.InitializedRequest) { tk.sessions.Add(1) },
	})
	mcp.AddTool(s, &mcp.Tool{Name: "search_tickets", Description: "Search open tickets by text.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
			n := tk.searches.Add(1)
			out := searchOut{Tickets: []ticket{}, Served: n}
			for _, t := range all {
				if strings.Contains(t.Title, in.Query) && (in.Limit == 0 || len(out.Tickets) < in.Limit) {
					out.Tickets = append(out.Tickets, t)
				}
			}
			out.Total = len(out.Tickets)
			return nil, out, nil
		})
	in, err := jsonschema.For[closeIn](nil)
	if err != nil {
		panic(err)
	}
	in.Properties["token"].WriteOnly = true // a secret: specs may pass secret values here
	destructive := true
	mcp.AddTool(s, &mcp.Tool{Name: "close_ticket", Description: "Close a ticket for good.", InputSchema: in,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}},
		func(_ context.Context, _ *mcp.CallToolRequest, in closeIn) (*mcp.CallToolResult, closeOut, error) {
			tk.lastToken.Store(in.Token)
			if in.Token != testToken {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "bad token for " + in.ID}}}, closeOut{}, nil
			}
			tk.closes.Add(1)
			return nil, closeOut{Closed: true}, nil
		})
	return s
}

// serveHTTP serves s over streamable HTTP until the test ends.
func serveHTTP(t *testing.T, s *mcp.Server) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
