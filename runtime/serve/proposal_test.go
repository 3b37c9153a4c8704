package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/serve"
)

// describer is a weak model: it writes the call as text instead of making it.
type describer struct{ text string }

func (m describer) Name() string { return "describer" }
func (m describer) Chat(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	return &llm.Response{Text: m.text}, nil
}

// TestAskProposesRecoveredActCall: a call to an act macro the model only
// described comes back from POST /v1/ask as a proposal (202) and nothing
// runs; POST /v1/ask/confirm runs it once, and a second confirmation (or
// an unknown id) runs nothing.
func TestAskProposesRecoveredActCall(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	text := "I will use the `add_customer` macro with these arguments:\n```json\n{\"name\": \"Ada Byron\", \"email\": \"ada@byron.example\", \"tier\": \"pro\"}\n```"
	f := newFixture(t, fixtureOpts{router: func(d *runtime.Dispatcher) *route.Router {
		return &route.Router{Registry: d.Registry, Dispatcher: d, Model: describer{text}}
	}})
	customers := func() int {
		resp, err := http.Get(f.demo + "/api/customers?q=ada@byron.example")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return len(body.Items)
	}
	post := func(path, body string) (int, map[string]any) {
		resp, err := http.Post(f.api.URL+path, "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, out := post("/v1/ask", `{"request": "add Ada Byron, ada@byron.example, on the pro tier"}`)
	id, _ := out["proposal_id"].(string)
	if code != http.StatusAccepted || out["decision"] != "proposed" || !strings.HasPrefix(id, "prop-") {
		t.Fatalf("ask: %d %v", code, out)
	}
	if n := customers(); n != 0 {
		t.Fatalf("a proposal ran: the site has %d such customers", n)
	}
	code, out = post("/v1/ask/confirm", `{"proposal": "`+id+`"}`)
	if code != http.StatusOK || out["ok"] != true {
		t.Fatalf("confirm: %d %v", code, out)
	}
	code, out = post("/v1/ask/confirm", `{"proposal": "`+id+`"}`)
	if code != http.StatusNotFound || !strings.Contains(out["error"].(map[string]any)["code"].(string), serve.CodeProposalNotFound) {
		t.Fatalf("second confirm: %d %v", code, out)
	}
	if code, _ := post("/v1/ask/confirm", `{"proposal": "prop-nope"}`); code != http.StatusNotFound {
		t.Fatalf("unknown proposal: %d", code)
	}
	if code, _ := post("/v1/ask/confirm", `{"id": "`+id+`"}`); code != http.StatusBadRequest {
		t.Fatalf("a body without proposal: %d", code)
	}
	if n := customers(); n != 1 {
		t.Fatalf("the site has %d such customers after one confirmation, want exactly 1", n)
	}
}
