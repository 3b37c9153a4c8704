package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/app"
)

// A deployment binary's command line over its registry (here one
// hand-written macro instead of a generated package): `version`, and
// `list` of the compiled macros. Main returns the exit code.
func ExampleMain() {
	greet := &runtime.Macro{
		Name:   "greet",
		Intent: "greet someone by name",
		Risk:   runtime.RiskRead,
		Params: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`),
		Handler: runtime.Handle(func(ctx context.Context, x *runtime.Exec, p struct{ Name string }) (string, error) {
			return "hello " + p.Name, nil
		}),
	}
	reg, err := runtime.NewRegistry(greet)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := &app.Config{Name: "shop", Version: "v1.2.3", Registry: reg}
	ctx := context.Background()
	for _, args := range [][]string{{"shop", "version"}, {"shop", "list"}, {"shop", "frobnicate"}} {
		code := app.Main(ctx, cfg, args, nil, os.Stdout, os.Stdout)
		fmt.Println("exit", code)
	}
	// Output:
	// shop v1.2.3
	// exit 0
	// greet                    read      greet someone by name
	// exit 0
	// shop: unknown command "frobnicate" (see 'shop help')
	// exit 2
}
