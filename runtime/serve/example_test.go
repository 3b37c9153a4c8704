package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/serve"
)

// The JSON HTTP API over a registry whose read macro has no page steps, so
// no browser starts: the macro list, a call with its result, a call with a
// bad argument (400, the JSON pointer of the problem) and an unknown macro
// (404, with a suggestion).
func Example() {
	customers := map[string]string{"initech": "finance@initech.example", "acme": "ap@acme.example"}
	findCustomer := &runtime.Macro{
		Name:   "find_customer",
		Intent: "find a customer by name",
		Risk:   runtime.RiskRead,
		Params: json.RawMessage(`{"type":"object","required":["query"],"additionalProperties":false,
			"properties":{"query":{"type":"string","minLength":1}}}`),
		Handler: runtime.Handle(func(ctx context.Context, x *runtime.Exec, p struct{ Query string }) (map[string]any, error) {
			email, ok := customers[p.Query]
			return map[string]any{"found": ok, "email": email}, nil
		}),
	}
	reg, err := runtime.NewRegistry(findCustomer)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := serve.New(serve.Options{Name: "shop", Version: "v0.1.0", Registry: reg})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Shutdown(context.Background())
	srv := httptest.NewServer(s.HTTPHandler())
	defer srv.Close()

	var list struct {
		Macros []struct{ Name, Risk string }
	}
	if err := getJSON(srv.URL+"/v1/macros", &list); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("macros:", list.Macros)

	for _, c := range []struct{ name, body string }{
		{"find_customer", `{"query": "initech"}`},
		{"find_customer", `{"query": ""}`},
		{"find_custmer", `{"query": "initech"}`},
	} {
		resp, err := http.Post(srv.URL+"/v1/macros/"+c.name, "application/json", strings.NewReader(c.body))
		if err != nil {
			fmt.Println(err)
			return
		}
		var out struct {
			OK     bool            `json:"ok"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    string
				Message string
				Args    []struct{ Pointer string }
			} `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		fmt.Print(resp.StatusCode, " ")
		if out.Error != nil {
			fmt.Print(out.Error.Code, " ")
			for _, a := range out.Error.Args {
				fmt.Print(a.Pointer, " ")
			}
			fmt.Println(out.Error.Message)
		} else {
			var result bytes.Buffer
			_ = json.Compact(&result, out.Result)
			fmt.Println(out.OK, result.String())
		}
	}
	// Output:
	// macros: [{find_customer read}]
	// 200 true {"email":"finance@initech.example","found":true}
	// 400 invalid_arguments /query 1 argument error(s) for find_customer
	// 404 macro_not_found no macro named "find_custmer" (did you mean "find_customer"?)
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
