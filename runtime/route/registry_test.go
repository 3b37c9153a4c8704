package route

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
)

// greetSchema and testRegistry mirror the runtime package's test registry: a
// read macro with a secret param, a dangerous one, an HTTP one and a
// composite.
const greetSchema = `{
  "type": "object",
  "required": ["name"],
  "additionalProperties": false,
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "tier": {"type": "string", "enum": ["free", "pro"], "default": "free"},
    "token": {"type": "string"},
    "count": {"type": "integer", "minimum": 1}
  }
}`

func testRegistry(t *testing.T, srvURL string) *runtime.Registry {
	t.Helper()
	greet := &runtime.Macro{
		Name: "greet", Intent: "greet someone", Risk: runtime.RiskRead, Params: json.RawMessage(greetSchema), Secrets: []string{"token"},
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			var p struct {
				Name, Tier, Token string
			}
			if err := json.Unmarshal(args, &p); err != nil {
				return nil, err
			}
			return map[string]string{"greeting": "hello " + p.Name + " (" + p.Tier + ")"}, nil
		},
	}
	wipe := &runtime.Macro{
		Name: "wipe", Intent: "delete everything", Risk: runtime.RiskDangerous,
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			return map[string]bool{"wiped": true}, nil
		},
	}
	fetch := &runtime.Macro{
		Name: "fetch_status", Intent: "call the API", Risk: runtime.RiskRead,
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			resp, err := x.HTTP(ctx, "steps[0]", runtime.HTTPRequest{Method: "POST", URL: srvURL + "/api/thing", Query: map[string]string{"b": "2", "a": "1"}, Body: map[string]string{"k": "v"}, ExpectStatus: []int{201}})
			if err != nil {
				return nil, err
			}
			v, err := resp.JSON()
			if err != nil {
				return nil, err
			}
			return v, nil
		},
	}
	compose := &runtime.Macro{
		Name: "compose", Intent: "greet via a nested call", Risk: runtime.RiskRead,
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			out, err := x.Call(ctx, "steps[0]", "greet", map[string]any{"name": "Ada", "token": "s3cret-nested"})
			if err != nil {
				return nil, err
			}
			if _, err := x.Primitive(ctx, "steps[1]", "upper", map[string]string{"s": "x"}); err != nil {
				return nil, err
			}
			return json.RawMessage(out), nil
		},
	}
	r, err := runtime.NewRegistry(wipe, greet, fetch, compose)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
