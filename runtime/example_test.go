package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/macrokit/macrokit-go/runtime"
)

// A hand-written macro needs no browser when it has no page step: the
// dispatcher validates the arguments (applying defaults), runs the handler
// and returns the verified outcome, or says which argument is wrong.
func ExampleDispatcher_Dispatch() {
	greet := &runtime.Macro{
		Name:   "greet",
		Intent: "greet someone",
		Risk:   runtime.RiskRead,
		Params: json.RawMessage(`{"type":"object","required":["name"],"additionalProperties":false,
			"properties":{"name":{"type":"string","minLength":1},"tier":{"type":"string","enum":["free","pro"],"default":"free"}}}`),
		Handler: func(ctx context.Context, x *runtime.Exec, args json.RawMessage) (any, error) {
			var p struct{ Name, Tier string }
			if err := json.Unmarshal(args, &p); err != nil {
				return nil, err
			}
			return map[string]string{"greeting": "hello " + p.Name + " (" + p.Tier + ")"}, nil
		},
	}
	reg, err := runtime.NewRegistry(greet)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := &runtime.Dispatcher{Registry: reg}
	ctx := context.Background()

	out := d.Dispatch(ctx, runtime.Call{ID: "c1", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)})
	fmt.Println(out.OK, string(out.Result))

	out = d.Dispatch(ctx, runtime.Call{ID: "c2", Name: "greet", Args: json.RawMessage(`{"name":"Bob","tier":"gold"}`)})
	fmt.Println(out.Error.Code, out.Error.Args[0].Pointer)
	// Output:
	// true {"greeting":"hello Ada (free)"}
	// invalid_arguments /tier
}
