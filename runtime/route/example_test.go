package route_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/macrokit/macrokit-go/llm/script"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/route"
)

// A turn routed by the offline scripted model to a hand-written macro (no
// page steps, so no browser): the router offers the macro, validates the
// model's call, dispatches it and has the model summarise the result. A
// request no rule covers gets a plain reply and runs nothing.
func Example() {
	countOrders := &runtime.Macro{
		Name:   "count_orders",
		Intent: "count the orders with a status",
		Risk:   runtime.RiskRead,
		Params: json.RawMessage(`{"type":"object","required":["status"],"additionalProperties":false,
			"properties":{"status":{"type":"string","enum":["pending","shipped"]}}}`),
		Handler: runtime.Handle(func(ctx context.Context, x *runtime.Exec, p struct{ Status string }) (map[string]int, error) {
			return map[string]int{"count": map[string]int{"pending": 3, "shipped": 7}[p.Status]}, nil
		}),
	}
	reg, err := runtime.NewRegistry(countOrders)
	if err != nil {
		fmt.Println(err)
		return
	}
	pb, err := script.Parse("shop", []byte(`
rules:
  - when: '(?i)how many orders are (?P<status>pending|shipped)'
    call: count_orders
    args: {status: "{{status}}"}
summary: "{{result}}"
fallback: "I can only count orders."
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &route.Router{Registry: reg, Dispatcher: &runtime.Dispatcher{Registry: reg}, Model: script.New(pb)}
	conv := r.NewConversation()
	defer conv.Close()

	for _, req := range []string{"How many orders are pending?", "delete everything"} {
		res, err := conv.Turn(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Decision)
		if res.Dispatched() {
			fmt.Println("  call:", res.Macro, string(res.Args))
			fmt.Println("  ok:", res.Outcome.OK, string(res.Outcome.Result))
		}
		fmt.Printf("  reply: %q\n", res.Reply)
	}
	// Output:
	// dispatched
	//   call: count_orders {"status":"pending"}
	//   ok: true {"count":3}
	//   reply: "{\"count\":3}\ncount_orders ran: 0 check(s) passed."
	// replied
	//   reply: "I can only count orders."
}
