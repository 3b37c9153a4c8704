package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route/catalog"
)

// Out of a small registry, the two macros a request is about: these are
// what a router puts into the model's prompt.
func Example() {
	noop := func(context.Context, *runtime.Exec, json.RawMessage) (any, error) { return nil, nil }
	macro := func(name, intent, params string) *runtime.Macro {
		return &runtime.Macro{Name: name, Intent: intent, Risk: runtime.RiskRead, Params: json.RawMessage(params), Handler: noop}
	}
	reg, err := runtime.NewRegistry(
		macro("add_customer", "add a customer with a name, an email and a tier",
			`{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string"},"tier":{"type":"string"}}}`),
		macro("find_customer", "find customers by name or email",
			`{"type":"object","properties":{"query":{"type":"string"}}}`),
		macro("list_orders", "list the orders with a status",
			`{"type":"object","properties":{"status":{"type":"string","enum":["pending","shipped"]}}}`),
		macro("refund_order", "refund an order by its number",
			`{"type":"object","properties":{"order":{"type":"integer"}}}`),
		macro("export_report", "export the monthly sales report as CSV",
			`{"type":"object","properties":{"month":{"type":"string"}}}`),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := catalog.New(reg)
	for _, req := range []string{"how many orders are pending?", "find the customer called Ada", "export last month's sales"} {
		var names []string
		for _, m := range c.Select(req, 2) {
			names = append(names, m.Name)
		}
		fmt.Printf("%s -> %v\n", req, names)
	}
	// Output:
	// how many orders are pending? -> [list_orders refund_order]
	// find the customer called Ada -> [find_customer add_customer]
	// export last month's sales -> [export_report add_customer]
}
