package explore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/explore"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// The raw tools as a model sees them, in their fixed order.
func ExampleTools() {
	for _, t := range explore.Tools() {
		var schema struct{ Required []string }
		_ = json.Unmarshal(t.InputSchema, &schema)
		fmt.Println(t.Name, t.Risk, schema.Required)
	}
	// Output:
	// page_goto read [url]
	// page_snapshot read []
	// page_click act [target]
	// page_fill act [target value]
	// page_select act [target option]
	// page_check act [target]
	// page_press act [key]
	// page_extract read [target]
	// http_request act [url]
}

// An http_request call through a session, with no browser: the path
// resolves against the explore URL, the JSON answer comes back, and the
// session log gets the raw tool_call and tool_result records that
// macrokit gate reads.
func ExampleSession_Dispatch() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"orders":[{"id":"o1","status":%q}]}`, r.URL.Query().Get("status"))
	}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "sessions")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	log, err := sessionlog.Open(dir, "s1")
	if err != nil {
		fmt.Println(err)
		return
	}

	s := explore.NewSession(&runtime.Dispatcher{}, log, srv.URL)
	out := s.Dispatch(context.Background(), runtime.Call{ID: "c1", Turn: 1, Name: explore.HTTP,
		Args: json.RawMessage(`{"url":"/api/orders","query":{"status":"pending"}}`)})
	var res struct {
		Method string
		Status int
		Body   json.RawMessage
	}
	_ = json.Unmarshal(out.Result, &res)
	fmt.Println(out.OK, res.Method, res.Status, string(res.Body))
	_ = s.Close()
	_ = log.Close()

	path, _ := sessionlog.Find(dir, "s1")
	sess, err := sessionlog.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range sess.Records {
		switch r.Type {
		case sessionlog.RecToolCall:
			fmt.Println(r.Type, r.Tool, "raw:", r.Raw, string(r.Args))
		case sessionlog.RecToolResult:
			fmt.Println(r.Type, r.Tool, "raw:", r.Raw, "ok:", r.OK)
		}
	}
	// Output:
	// true GET 200 {"orders":[{"id":"o1","status":"pending"}]}
	// tool_call http_request raw: true {"method":"GET","query":{"status":"pending"},"url":"/api/orders"}
	// tool_result http_request raw: true ok: true
}
