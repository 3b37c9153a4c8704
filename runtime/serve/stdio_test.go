package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/serve"
)

// stdioSession runs ServeStdio on pipes; send writes one line, recv reads
// one reply.
type stdioSession struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func newStdioSession(t *testing.T, srv *serve.Server) *stdioSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss := &stdioSession{in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { ss.done <- srv.ServeStdio(ctx, inR, outW); _ = outW.Close() }()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case <-ss.done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
		cancel()
		_ = outR.Close()
	})
	return ss
}

func (ss *stdioSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(ss.in, line+"\n"); err != nil {
		t.Fatalf("write %q: %v (the server stopped reading)", truncate(line), err)
	}
}

type rpcReply struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (ss *stdioSession) recv(t *testing.T) rpcReply {
	t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() { l, err := ss.out.ReadString('\n'); ch <- res{l, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("read reply: %v", r.err)
		}
		var rep rpcReply
		if err := json.Unmarshal([]byte(r.line), &rep); err != nil {
			t.Fatalf("reply %q: %v", truncate(r.line), err)
		}
		return rep
	case <-time.After(10 * time.Second):
		t.Fatal("no reply within 10 s")
	}
	return rpcReply{}
}

// TestStdioBadLinesAnswered: a line that is not JSON-RPC gets a JSON-RPC
// error reply (id null) and the session goes on: initialize, tools/list
// and tools/call after it are answered. Before, the SDK's transport ended
// the session and serve --mcp exited 1 without a reply.
func TestStdioBadLinesAnswered(t *testing.T) {
	var runs atomic.Int64
	srv, err := serve.New(serve.Options{Name: "stdio", Registry: smallRegistry(t, &runs)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	ss := newStdioSession(t, srv)
	bad := []struct {
		name, line string
		code       int
	}{
		{"not json", "hello, server", -32700},
		{"truncated json", `{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, -32700},
		{"invalid utf8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", -32700},
		{"not json-rpc", `{"hello":"world"}`, -32600},
		{"a number", `42`, -32600},
		{"empty batch", `[]`, -32600},
		{"too long", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("a", 5<<20) + `"}}`, -32700},
	}
	for _, b := range bad {
		ss.send(t, b.line)
		rep := ss.recv(t)
		if rep.Error == nil || rep.Error.Code != b.code || rep.ID != nil {
			t.Fatalf("%s: got %+v, want error %d with id null", b.name, rep, b.code)
		}
	}
	ss.send(t, "") // blank lines are skipped
	ss.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if rep := ss.recv(t); rep.Error != nil || len(rep.Result) == 0 {
		t.Fatalf("initialize after bad lines: %+v", rep)
	}
	ss.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	ss.send(t, "garbage between requests")
	if rep := ss.recv(t); rep.Error == nil || rep.Error.Code != -32700 {
		t.Fatalf("garbage: %+v", rep)
	}
	ss.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	rep := ss.recv(t)
	if rep.Error != nil || !strings.Contains(string(rep.Result), `"count"`) {
		t.Fatalf("tools/list: %+v", rep)
	}
	// A tools/call with sloppy arguments is a tool error, and nothing runs.
	for _, tc := range []struct{ name, tool, args, want string }{
		{"misspelt key", "count", `{"name":"Ada","teir":"pro"}`, `did you mean \"tier\"`},
		{"duplicate keys", "count", `{"name":"Ada","name":"Bob"}`, `duplicate key`},
		{"nested duplicate", "count", `{"name":"Ada","tier":{"a":1,"a":2}}`, `duplicate key`},
		{"huge string", "echo", `{"text":"` + strings.Repeat("z", 900<<10) + `"}`, `less than or equal to 10`},
		{"escaped control chars", "echo", `{"text":"\u0000\u001b[31m"}`, ``},
	} {
		ss.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+tc.tool+`","arguments":`+tc.args+`}}`)
		rep = ss.recv(t)
		if tc.want == "" {
			if rep.Error != nil || strings.Contains(string(rep.Result), `"isError":true`) {
				t.Fatalf("%s: %+v %s", tc.name, rep, truncate(string(rep.Result)))
			}
			continue
		}
		if rep.Error != nil || !strings.Contains(string(rep.Result), `"isError":true`) || !strings.Contains(string(rep.Result), tc.want) {
			t.Fatalf("%s: %+v %s", tc.name, rep, truncate(string(rep.Result)))
		}
		if len(rep.Result) > 16<<10 {
			t.Errorf("%s: a %d-byte tool error", tc.name, len(rep.Result))
		}
	}
	ss.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count","arguments":{"name":"Ada"}}}`)
	if rep := ss.recv(t); rep.Error != nil || strings.Contains(string(rep.Result), `"isError":true`) {
		t.Fatalf("tools/call: %+v %s", rep, rep.Result)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("count ran %d times, want 1", n)
	}
}
