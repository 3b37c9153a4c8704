package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeNATS runs `serve --http --nats` and a `worker` in-process over
// an embedded nats-server and the demo site: a call whose client
// disconnects before any worker runs is cancelled and never runs (the
// worker starts after; the site has no such customer); then
// POST /v1/macros/add_customer stores its customer once with a passed
// verdict, an MCP tools/call over streamable HTTP runs through the queue
// too, /healthz reports NATS, and serve exits 0 without having started a
// browser.
func TestServeNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	site, _, env := batchSetup(t)
	n := startNATS(t)
	srv := startServe(t, env, "--http", "127.0.0.1:0", "--session-dir", "", "--nats", n.URL)
	m := regexp.MustCompile(`MCP at (http://[^ ]+)/mcp`).FindStringSubmatch(srv.Banner)
	if m == nil || !strings.Contains(srv.Banner, "calls run on the fleet at "+n.URL+" (stream MACROKIT_JOBS), no browser here") {
		t.Fatalf("banner %q", srv.Banner)
	}
	base := m[1]
	q := testQueue(t, n.URL)
	post := func(ctx context.Context, args string) (int, map[string]any, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/macros/add_customer", strings.NewReader(args))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var body map[string]any
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &body)
		return resp.StatusCode, body, nil
	}
	health := func() map[string]any {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&h)
		return h
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	stream, err := q.js.Stream(context.Background(), q.Config().Stream)
	if err != nil {
		t.Fatal(err)
	}
	queued := func() uint64 {
		info, err := stream.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return info.State.Msgs
	}

	// The client gives up before any worker is there.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, _, err := post(ctx, `{"name":"Gone Client","email":"gone@fleet.example"}`)
		errc <- err
	}()
	waitFor("the job on the stream", func() bool { return queued() == 1 })
	msg, err := stream.GetMsg(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var gone queue.Job
	if err := json.Unmarshal(msg.Data, &gone); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the request finished though its client went away")
	}
	waitFor("serve to drop the call", func() bool { return health()["in_flight"] == 0.0 })

	startWorker(t, env, n.URL)
	wctx, wcancel := context.WithTimeout(context.Background(), time.Minute)
	defer wcancel()
	r, err := q.Wait(wctx, gone.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != queue.StatusFailed || r.Error == nil || r.Error.Code != queue.CodeCancelled {
		t.Fatalf("the abandoned job: %s %+v", r.Status, r.Error)
	}
	if c := customersLike(t, site.URL, "gone@fleet.example"); c != 0 {
		t.Fatalf("the abandoned call stored its customer %d time(s)", c)
	}

	code, body, err := post(wctx, `{"name":"Fleet Person","email":"person@fleet.example"}`)
	if err != nil {
		t.Fatal(err)
	}
	remote, _ := body["remote"].(map[string]any)
	if code != 200 || body["verdict"] != "passed" || remote == nil || remote["status"] != "ok" {
		t.Fatalf("add_customer: %d %v", code, body)
	}
	if c := customersLike(t, site.URL, "person@fleet.example"); c != 1 {
		t.Errorf("stored %d time(s), want 1", c)
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fleet-test", Version: "v0"}, nil).Connect(wctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(wctx, &mcp.CallToolParams{Name: "find_customer", Arguments: map[string]any{"query": "person@fleet.example"}})
	if err != nil {
		t.Fatal(err)
	}
	_ = cs.Close()
	ev, _ := res.Meta["macrokit/evidence"].(map[string]any)
	if res.IsError || ev == nil || ev["remote"] == nil || !strings.Contains(string(mustJSON(t, res.StructuredContent)), "Fleet Person") {
		t.Fatalf("tools/call: %v %v", res.IsError, res.Content)
	}

	h := health()
	fl, _ := h["fleet"].(map[string]any)
	if h["status"] != "ok" || fl == nil || fl["connected"] != true || h["pool"].(map[string]any)["launches"] != 0.0 {
		t.Errorf("/healthz %v", h)
	}
	if code, _, errs := srv.stop(t); code != 0 {
		t.Fatalf("serve exit %d\n%s", code, errs)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
