package generated

// This test is copied next to the generated e2e package by gen's golden
// test and runs the generated macros through the runtime dispatcher: the API
// macros against an httptest server, the page macros in Chromium (skipped
// when there is none).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
)

const customersPage = `<!doctype html><html><head><title>Customers</title></head><body><main>
<h1>Customers</h1>
<button type="button" id="new">New customer</button>
<form id="form" hidden>
  <label for="name">Name</label> <input id="name">
  <label for="email">Email</label> <input id="email" type="email">
  <label for="tier">Tier</label>
  <select id="tier"><option value="free">free</option><option value="pro">pro</option><option value="enterprise">enterprise</option></select>
  <button type="button" id="save">Save</button>
</form>
<div role="status" id="status"></div>
<table aria-label="Customers"><tbody id="rows">
<tr data-testid="customer-row" data-id="c1"><td data-testid="name">Ada</td><td data-testid="tier">pro</td><td><a href="/customers/c1">open</a></td></tr>
<tr data-testid="customer-row" data-id="c2"><td data-testid="name">Grace</td><td data-testid="tier">free</td><td><a href="/customers/c2">open</a></td></tr>
</tbody></table>
</main>
<script>
const $ = (id) => document.getElementById(id);
$('new').onclick = () => { $('form').hidden = false; $('name').focus(); };
$('save').onclick = async () => {
  const body = {name: $('name').value, email: $('email').value, tier: $('tier').value};
  const r = await fetch('/api/customers', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
  const j = await r.json();
  const tr = document.createElement('tr');
  tr.dataset.testid = 'customer-row';
  tr.dataset.id = j.id;
  for (const [k, v] of [['name', body.name], ['tier', body.tier]]) {
    const td = document.createElement('td'); td.dataset.testid = k; td.textContent = v; tr.appendChild(td);
  }
  $('rows').appendChild(tr);
  $('status').textContent = 'Saved ' + body.email;
  $('form').hidden = true;
};
</script></body></html>`

type site struct {
	mu    sync.Mutex
	next  int
	notes []map[string]any
	auth  []string
}

func (s *site) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /customers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, customersPage)
	})
	mux.HandleFunc("GET /customers/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		carrier := map[string]string{"c1": "UPS", "c2": "DHL"}[r.PathValue("id")]
		fmt.Fprintf(w, `<!doctype html><title>%[1]s</title><h1>Customer %[1]s</h1><p data-testid="carrier">%[2]s</p>`, r.PathValue("id"), carrier)
	})
	mux.HandleFunc("POST /api/customers", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.next++
		id := fmt.Sprintf("c%d", 100+s.next)
		s.mu.Unlock()
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"id":%q}`, id)
	})
	mux.HandleFunc("GET /api/orders", func(w http.ResponseWriter, r *http.Request) {
		c := r.URL.Query().Get("customer")
		fmt.Fprintf(w, `{"customer":%q,"count":2,"orders":[{"id":"o1","total":12.5},{"id":"o2","total":7}],"meta":{"region":"eu"}}`, c)
	})
	mux.HandleFunc("POST /api/notes", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		s.notes = append(s.notes, body)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		n := len(s.notes)
		s.mu.Unlock()
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"id":"n%d"}`, n)
	})
	mux.HandleFunc("GET /api/notes/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":%q}`, r.PathValue("id"))
	})
	return mux
}

func dispatcher(t *testing.T, srv *httptest.Server) *runtime.Dispatcher {
	t.Helper()
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"APP_URL": srv.URL, "API_URL": srv.URL}
	return &runtime.Dispatcher{
		Registry: reg,
		Getenv:   func(k string) string { return env[k] },
		Primitives: runtime.Primitives{
			"multiply": func(ctx context.Context, args json.RawMessage) (any, error) {
				var a struct{ X, By float64 }
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, err
				}
				return a.X * a.By, nil
			},
		},
		Timeout: 60 * time.Second,
	}
}

func call(t *testing.T, d *runtime.Dispatcher, name, args string) *runtime.Outcome {
	t.Helper()
	return d.Dispatch(context.Background(), runtime.Call{ID: name, Name: name, Args: json.RawMessage(args)})
}

func TestGeneratedAPIMacros(t *testing.T) {
	s := &site{}
	srv := httptest.NewServer(s.handler())
	defer srv.Close()
	d := dispatcher(t, srv)

	out := call(t, d, "order_totals", `{"customer":"c1"}`)
	if !out.OK {
		t.Fatalf("order_totals: %+v", out.Error)
	}
	want := `{"count":2,"totals":[12.5,7],"region":"eu","doubled":14,"ids":["o1","o2"],"note":"2 orders in eu, last doubled 14"}`
	if string(out.Result) != want {
		t.Errorf("order_totals = %s\nwant %s", out.Result, want)
	}
	var paths []string
	for _, st := range out.Steps {
		paths = append(paths, st.Path+":"+st.Kind)
	}
	wantPaths := "steps[0]:http,steps[1]:assert,steps[2]:assert,steps[4]:foreach,steps[4].foreach[0].steps[0]:primitive,steps[4].foreach[1].steps[0]:primitive,steps[5]:if"
	if got := strings.Join(paths, ","); got != wantPaths {
		t.Errorf("evidence paths\n got %s\nwant %s", got, wantPaths)
	}

	out = call(t, d, "note_orders", `{"customer":"c2","token":"tok-secret-123"}`)
	if !out.OK {
		t.Fatalf("note_orders: %+v", out.Error)
	}
	if string(out.Result) != `{"note_id":"n1","count":2,"region":"eu"}` {
		t.Errorf("note_orders = %s", out.Result)
	}
	if len(s.notes) != 1 || s.auth[0] != "Bearer tok-secret-123" || s.notes[0]["customer"] != "c2" || fmt.Sprint(s.notes[0]["totals"]) != "[12.5 7]" {
		t.Errorf("note sent = %v %v", s.notes, s.auth)
	}
	b, _ := json.Marshal(out)
	if strings.Contains(string(b), "tok-secret-123") {
		t.Errorf("secret in the outcome: %s", b)
	}

	// A JSON path that is not in the response fails the step, with its path.
	out = call(t, d, "note_orders", `{"customer":"c2","token":"tok-secret-123","strict":true}`)
	if out.OK || out.Error.Code != runtime.CodeStepFailed || out.Error.Step == nil || out.Error.Step.Path != "steps[3].if.then[0]" ||
		!strings.Contains(out.Error.Message, `extract missing: $ has no key "no"`) {
		t.Errorf("strict note_orders: %+v", out.Error)
	}

	// An unset environment variable fails before any step.
	d.Getenv = func(string) string { return "" }
	out = call(t, d, "order_totals", `{"customer":"c1"}`)
	if out.OK || out.Error.Code != runtime.CodeInternal || !strings.Contains(out.Error.Message, "API_URL is not set") || len(out.Steps) != 0 {
		t.Errorf("unset env: %+v", out)
	}

	// Arguments are validated against the embedded schema.
	out = call(t, d, "add_customer", `{"name":"","email":"x@example.com","tier":"gold"}`)
	if out.OK || out.Error.Code != runtime.CodeInvalidArguments || len(out.Error.Args) != 2 {
		t.Errorf("invalid args: %+v", out.Error)
	}
}

func TestGeneratedPageMacros(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium")
	}
	if _, err := engine.FindBrowser(); err != nil {
		t.Skip("no Chromium:", err)
	}
	s := &site{}
	srv := httptest.NewServer(s.handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := engine.Launch(ctx, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	d := dispatcher(t, srv)
	d.Pages = runtime.ContextPages(b)

	out := call(t, d, "add_customer", `{"name":"Alan Turing","email":"alan@example.com","tier":"pro"}`)
	if !out.OK {
		for _, st := range out.Steps {
			t.Logf("%s %s %s %s", st.Path, st.Kind, st.Status, st.Message)
		}
		t.Fatalf("add_customer: %+v", out.Error)
	}
	if string(out.Result) != `{"customer_id":"c101"}` {
		t.Errorf("add_customer = %s", out.Result)
	}
	if out.Verification.Passed < 4 || out.Verification.Failed != 0 || out.Verification.Unverifiable != 0 {
		t.Errorf("verification = %+v", out.Verification)
	}

	out = call(t, d, "list_customers", `{}`)
	if !out.OK {
		for _, st := range out.Steps {
			t.Logf("%s %s %s %s", st.Path, st.Kind, st.Status, st.Message)
		}
		t.Fatalf("list_customers: %+v", out.Error)
	}
	want := `{"count":2,"customers":[{"id":"c1","name":"Ada","carrier":"UPS","match":true},{"id":"c2","name":"Grace","carrier":"DHL","match":false}]}`
	if string(out.Result) != want {
		t.Errorf("list_customers = %s\nwant %s", out.Result, want)
	}
	shots := 0
	for _, st := range out.Steps {
		if st.Kind == "screenshot" {
			shots++
			if st.Path != "steps[6].foreach[0].steps[2].if.then[1]" {
				t.Errorf("screenshot path %s", st.Path)
			}
		}
	}
	if shots != 1 {
		t.Errorf("%d screenshots, want 1", shots)
	}
}
