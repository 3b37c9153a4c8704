package demosite

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var testNow = time.Date(2026, 3, 15, 10, 30, 0, 0, time.UTC)

func newTestSite(t *testing.T, opts Options) *Site {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = func() time.Time { return testNow }
	}
	return New(opts)
}

type response struct {
	code   int
	header http.Header
	body   string
}

// decode unmarshals the body into v, failing the test on error.
func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.body), v); err != nil {
		t.Fatalf("body is not JSON (%v): %s", err, r.body)
	}
}

// apiErr decodes an error body and checks its shape.
func (r response) apiErr(t *testing.T) apiError {
	t.Helper()
	var e errorBody
	r.decode(t, &e)
	if e.Error.Code == "" || e.Error.Message == "" || e.Error.Fields == nil {
		t.Fatalf("error body lacks code, message or fields: %s", r.body)
	}
	return e.Error
}

type req struct {
	method  string
	path    string
	body    string
	headers map[string]string
	cookies []*http.Cookie
}

func do(t *testing.T, s *Site, r req) response {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	var body *strings.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	} else {
		body = strings.NewReader("")
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	if r.body != "" && r.headers["Content-Type"] == "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.headers {
		hr.Header.Set(k, v)
	}
	for _, c := range r.cookies {
		hr.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, hr)
	return response{code: rec.Code, header: rec.Header(), body: rec.Body.String()}
}

func get(t *testing.T, s *Site, path string) response {
	t.Helper()
	return do(t, s, req{path: path})
}

func customerCount(t *testing.T, s *Site) int {
	t.Helper()
	var l customerList
	get(t, s, "/api/customers").decode(t, &l)
	return l.Total
}

func TestSeedIsDeterministic(t *testing.T) {
	a := get(t, newTestSite(t, Options{Seed: 7}), "/api/orders/export").body
	b := get(t, newTestSite(t, Options{Seed: 7}), "/api/orders/export").body
	c := get(t, newTestSite(t, Options{Seed: 8}), "/api/orders/export").body
	if a != b {
		t.Error("same seed and clock gave different orders")
	}
	if a == c {
		t.Error("different seeds gave the same orders")
	}

	s := newTestSite(t, Options{})
	var all orderExport
	get(t, s, "/api/orders/export").decode(t, &all)
	if all.Total != seedOrderCount || len(all.Items) != seedOrderCount {
		t.Fatalf("got %d orders, want %d", all.Total, seedOrderCount)
	}
	counts := map[string]int{}
	for i, o := range all.Items {
		counts[o.Status]++
		if i > 0 && o.CreatedAt.After(all.Items[i-1].CreatedAt) {
			t.Errorf("orders not newest first at %d", i)
		}
		if !o.CreatedAt.Before(testNow) || o.CustomerName == "" || o.Total <= 0 || o.Currency != "USD" {
			t.Errorf("implausible order %+v", o)
		}
	}
	for st, want := range seedStatusCounts {
		if counts[st] != want {
			t.Errorf("%s orders = %d, want %d", st, counts[st], want)
		}
	}
	if all.Items[0].ID != "o1060" || all.Items[seedOrderCount-1].ID != "o1001" {
		t.Errorf("ids run %s..%s, want o1060..o1001", all.Items[0].ID, all.Items[seedOrderCount-1].ID)
	}
	if n := customerCount(t, s); n != len(seedCustomers) {
		t.Errorf("got %d customers, want %d", n, len(seedCustomers))
	}
}

func TestCustomerSearch(t *testing.T) {
	s := newTestSite(t, Options{})
	tests := []struct {
		query   string
		code    int
		wantIDs []string
	}{
		{"", 200, []string{"c1", "c2", "c3", "c4", "c5"}},
		{"?q=glob", 200, []string{"c2"}},
		{"?q=GLOBEX", 200, []string{"c2"}},
		{"?q=%20acme%20", 200, []string{"c1"}},
		{"?q=example", 200, []string{"c1", "c2", "c3", "c4", "c5"}},
		{"?q=stark-logistics", 200, []string{"c5"}}, // matches the email
		{"?q=nobody", 200, []string{}},
		{"?tier=pro", 200, []string{"c2", "c3"}},
		{"?tier=Enterprise&q=stark", 200, []string{"c5"}},
		{"?tier=gold", 400, nil},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := get(t, s, "/api/customers"+tc.query)
			if r.code != tc.code {
				t.Fatalf("code %d, want %d: %s", r.code, tc.code, r.body)
			}
			if tc.code != 200 {
				if e := r.apiErr(t); e.Fields["tier"] == "" {
					t.Errorf("no tier field error: %s", r.body)
				}
				return
			}
			var l customerList
			r.decode(t, &l)
			if l.Items == nil {
				t.Fatal("items is null, want an array")
			}
			var ids []string
			for _, c := range l.Items {
				ids = append(ids, c.ID)
			}
			if !slices.Equal(ids, tc.wantIDs) && len(ids)+len(tc.wantIDs) > 0 {
				t.Errorf("ids %v, want %v", ids, tc.wantIDs)
			}
			if l.Total != len(l.Items) {
				t.Errorf("total %d != %d items", l.Total, len(l.Items))
			}
		})
	}
}

func TestCreateCustomer(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		code       int
		errCode    string
		wantFields []string
		wantTier   string
	}{
		{"valid", `{"name":"Jane Doe","email":"jane@example.com","tier":"pro"}`, 201, "", nil, "pro"},
		{"tier defaults to free", `{"name":"Jane Doe","email":"jane@example.com"}`, 201, "", nil, "free"},
		{"trims and lowercases", `{"name":"  Jane  ","email":" jane@example.com ","tier":" Enterprise "}`, 201, "", nil, "enterprise"},
		{"unknown fields ignored", `{"name":"Jane","email":"jane@example.com","vip":true}`, 201, "", nil, "free"},
		{"empty name", `{"name":"  ","email":"jane@example.com"}`, 400, "validation_failed", []string{"name"}, ""},
		{"bad email", `{"name":"Jane","email":"jane@example"}`, 400, "validation_failed", []string{"email"}, ""},
		{"email with spaces", `{"name":"Jane","email":"ja ne@example.com"}`, 400, "validation_failed", []string{"email"}, ""},
		{"everything wrong", `{"tier":"gold"}`, 400, "validation_failed", []string{"email", "name", "tier"}, ""},
		{"name too long", `{"name":"` + strings.Repeat("x", 101) + `","email":"jane@example.com"}`, 400, "validation_failed", []string{"name"}, ""},
		{"duplicate email", `{"name":"Acme again","email":"BILLING@acme.example"}`, 409, "conflict", []string{"email"}, ""},
		{"not JSON", `name=Jane`, 400, "bad_request", nil, ""},
		{"empty body", ``, 400, "bad_request", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSite(t, Options{})
			r := do(t, s, req{method: "POST", path: "/api/customers", body: tc.body})
			if r.code != tc.code {
				t.Fatalf("code %d, want %d: %s", r.code, tc.code, r.body)
			}
			if tc.code != 201 {
				e := r.apiErr(t)
				if e.Code != tc.errCode {
					t.Errorf("error code %q, want %q", e.Code, tc.errCode)
				}
				var keys []string
				for k := range e.Fields {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if !slices.Equal(keys, tc.wantFields) && len(keys)+len(tc.wantFields) > 0 {
					t.Errorf("field errors %v, want %v", keys, tc.wantFields)
				}
				if n := customerCount(t, s); n != 5 {
					t.Errorf("a rejected create changed the list to %d customers", n)
				}
				return
			}
			var c customerJSON
			r.decode(t, &c)
			if c.ID != "c6" || c.Tier != tc.wantTier || c.OrderCount != 0 || !c.CreatedAt.Equal(testNow) {
				t.Errorf("created %+v", c)
			}
			if strings.HasPrefix(c.Name, " ") || strings.HasPrefix(c.Email, " ") {
				t.Errorf("input not trimmed: %+v", c)
			}
			if loc := r.header.Get("Location"); loc != "/api/customers/c6" {
				t.Errorf("Location %q", loc)
			}
			var got customerJSON
			get(t, s, "/api/customers/c6").decode(t, &got)
			if got != c {
				t.Errorf("GET after create = %+v, want %+v", got, c)
			}
			if n := customerCount(t, s); n != 6 {
				t.Errorf("list has %d customers after create, want 6", n)
			}
			// Ids keep counting.
			r = do(t, s, req{method: "POST", path: "/api/customers", body: `{"name":"B","email":"b@example.com"}`})
			r.decode(t, &c)
			if c.ID != "c7" {
				t.Errorf("second id %q, want c7", c.ID)
			}
		})
	}
}

func TestGetCustomer(t *testing.T) {
	s := newTestSite(t, Options{})
	var c customerJSON
	r := get(t, s, "/api/customers/c1")
	r.decode(t, &c)
	if r.code != 200 || c.Name != "Acme Corporation" || c.OrderCount == 0 {
		t.Errorf("c1 = %d %+v", r.code, c)
	}
	r = get(t, s, "/api/customers/c99")
	if r.code != 404 || r.apiErr(t).Code != "not_found" {
		t.Errorf("c99: %d %s", r.code, r.body)
	}
}

func TestOrdersPaging(t *testing.T) {
	s := newTestSite(t, Options{})
	next := func(n int) *int { return &n }
	tests := []struct {
		query      string
		items      int
		total      int
		nextOffset *int
		allStatus  string
	}{
		{"", 20, 60, next(20), ""},
		{"?offset=20", 20, 60, next(40), ""},
		{"?offset=40", 20, 60, nil, ""},
		{"?offset=60", 0, 60, nil, ""},
		{"?offset=55&limit=10", 5, 60, nil, ""},
		{"?limit=100", 60, 60, nil, ""},
		{"?status=all", 20, 60, next(20), ""},
		{"?status=pending", 14, 14, nil, "pending"},
		{"?status=PAID&limit=5", 5, 18, next(5), "paid"},
		{"?status=shipped&offset=10", 10, 20, nil, "shipped"},
		{"?status=cancelled", 8, 8, nil, "cancelled"},
		{"?customer=c99", 0, 0, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := get(t, s, "/api/orders"+tc.query)
			if r.code != 200 {
				t.Fatalf("code %d: %s", r.code, r.body)
			}
			var p orderPage
			r.decode(t, &p)
			if len(p.Items) != tc.items || p.Total != tc.total {
				t.Errorf("%d items of %d, want %d of %d", len(p.Items), p.Total, tc.items, tc.total)
			}
			if (p.NextOffset == nil) != (tc.nextOffset == nil) || (p.NextOffset != nil && *p.NextOffset != *tc.nextOffset) {
				t.Errorf("next_offset %v, want %v", p.NextOffset, tc.nextOffset)
			}
			for _, o := range p.Items {
				if tc.allStatus != "" && o.Status != tc.allStatus {
					t.Errorf("order %s has status %s", o.ID, o.Status)
				}
			}
			if !strings.Contains(r.body, `"next_offset"`) {
				t.Error("next_offset missing (want null on the last page)")
			}
		})
	}

	// Walking the pages visits every order once, newest first.
	var ids []string
	for off := 0; ; {
		var p orderPage
		get(t, s, fmt.Sprintf("/api/orders?offset=%d", off)).decode(t, &p)
		for _, o := range p.Items {
			ids = append(ids, o.ID)
		}
		if p.NextOffset == nil {
			break
		}
		off = *p.NextOffset
	}
	want := make([]string, 0, 60)
	for n := 1060; n >= 1001; n-- {
		want = append(want, fmt.Sprintf("o%d", n))
	}
	if !slices.Equal(ids, want) {
		t.Errorf("paging visited %v", ids)
	}
}

func TestOrdersBadParams(t *testing.T) {
	s := newTestSite(t, Options{})
	tests := []struct{ path, field string }{
		{"/api/orders?status=lost", "status"},
		{"/api/orders?offset=-1", "offset"},
		{"/api/orders?offset=two", "offset"},
		{"/api/orders?limit=0", "limit"},
		{"/api/orders?limit=101", "limit"},
		{"/api/orders?format=xml", "format"},
		{"/api/orders/export?status=lost", "status"},
		{"/api/orders/export?format=xlsx", "format"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := get(t, s, tc.path)
			if r.code != 400 {
				t.Fatalf("code %d: %s", r.code, r.body)
			}
			if e := r.apiErr(t); e.Code != "validation_failed" || e.Fields[tc.field] == "" {
				t.Errorf("want a %s field error: %s", tc.field, r.body)
			}
		})
	}
}

func readCSV(t *testing.T, r response) [][]string {
	t.Helper()
	if r.code != 200 {
		t.Fatalf("code %d: %s", r.code, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := r.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=") {
		t.Errorf("Content-Disposition %q", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
	if err != nil {
		t.Fatalf("bad CSV: %v", err)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], csvHeader) {
		t.Fatalf("header %v, want %v", rows[0], csvHeader)
	}
	return rows[1:]
}

func TestOrdersExport(t *testing.T) {
	s := newTestSite(t, Options{})
	var c1 customerJSON
	get(t, s, "/api/customers/c1").decode(t, &c1)

	tests := []struct {
		name   string
		path   string
		accept string
		csv    bool
		count  int
		status string
	}{
		{"json all", "/api/orders/export", "", false, 60, "all"},
		{"json paid", "/api/orders/export?status=paid", "", false, 18, "paid"},
		{"json explicit", "/api/orders/export?format=json&status=pending", "", false, 14, "pending"},
		{"json by customer", "/api/orders/export?customer=c1", "", false, c1.OrderCount, "all"},
		{"csv all", "/api/orders/export?format=csv", "", true, 60, ""},
		{"csv shipped", "/api/orders/export?format=csv&status=shipped", "", true, 20, "shipped"},
		{"csv by Accept", "/api/orders/export?status=cancelled", "text/csv", true, 8, "cancelled"},
		{"json wins mixed Accept", "/api/orders/export", "text/csv, application/json", false, 60, "all"},
		{"list page as csv", "/api/orders?format=csv&status=paid&limit=5", "", true, 5, "paid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, req{path: tc.path, headers: map[string]string{"Accept": tc.accept}})
			if tc.csv {
				rows := readCSV(t, r)
				if len(rows) != tc.count {
					t.Fatalf("%d rows, want %d", len(rows), tc.count)
				}
				for _, row := range rows {
					if tc.status != "" && row[3] != tc.status {
						t.Errorf("row %v has the wrong status", row)
					}
					if !strings.Contains(row[4], ".") || row[5] != "USD" {
						t.Errorf("row %v: total should have two decimals, currency USD", row)
					}
				}
				return
			}
			if r.code != 200 {
				t.Fatalf("code %d: %s", r.code, r.body)
			}
			var e orderExport
			r.decode(t, &e)
			if e.Total != tc.count || len(e.Items) != tc.count || e.Status != tc.status {
				t.Errorf("total %d, items %d, status %q; want %d, %q", e.Total, len(e.Items), e.Status, tc.count, tc.status)
			}
		})
	}

	// The CSV and JSON exports agree.
	var js orderExport
	get(t, s, "/api/orders/export?status=paid").decode(t, &js)
	rows := readCSV(t, get(t, s, "/api/orders/export?status=paid&format=csv"))
	for i, o := range js.Items {
		want := []string{o.ID, o.CustomerID, o.CustomerName, o.Status, fmt.Sprintf("%.2f", o.Total), "USD", fmt.Sprint(o.Items), o.CreatedAt.Format(time.RFC3339)}
		if !slices.Equal(rows[i], want) {
			t.Errorf("csv row %v, json %v", rows[i], want)
		}
	}
	if cd := get(t, s, "/api/orders/export?status=paid&format=csv").header.Get("Content-Disposition"); !strings.Contains(cd, "orders-paid.csv") {
		t.Errorf("Content-Disposition %q", cd)
	}
}

func TestGetOrder(t *testing.T) {
	s := newTestSite(t, Options{})
	var o orderJSON
	r := get(t, s, "/api/orders/o1001")
	r.decode(t, &o)
	if r.code != 200 || o.ID != "o1001" || o.CustomerName == "" {
		t.Errorf("o1001 = %d %+v", r.code, o)
	}
	if r := get(t, s, "/api/orders/o1"); r.code != 404 || r.apiErr(t).Code != "not_found" {
		t.Errorf("o1: %d %s", r.code, r.body)
	}
}

func TestSettings(t *testing.T) {
	s := newTestSite(t, Options{})
	var cur settings
	get(t, s, "/api/settings").decode(t, &cur)
	if cur != (settings{EmailNotifications: true}) {
		t.Fatalf("seeded settings %+v", cur)
	}

	tests := []struct {
		name string
		body string
		code int
		want settings
	}{
		{"partial update keeps the rest", `{"weekly_report":true}`, 200, settings{EmailNotifications: true, WeeklyReport: true}},
		{"full update", `{"email_notifications":false,"weekly_report":false,"dark_mode":true}`, 200, settings{DarkMode: true}},
		{"empty object changes nothing", `{}`, 200, settings{DarkMode: true}},
		{"unknown field", `{"dark_mode":false,"colour":"red"}`, 400, settings{DarkMode: true}},
		{"wrong type", `{"dark_mode":"yes"}`, 400, settings{DarkMode: true}},
		{"not JSON", `dark_mode=1`, 400, settings{DarkMode: true}},
	}
	for _, tc := range tests { // in order: each case starts from the previous state
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, s, req{method: "PUT", path: "/api/settings", body: tc.body})
			if r.code != tc.code {
				t.Fatalf("code %d, want %d: %s", r.code, tc.code, r.body)
			}
			if tc.code == 200 {
				var got settings
				r.decode(t, &got)
				if got != tc.want {
					t.Errorf("PUT answered %+v, want %+v", got, tc.want)
				}
			} else if e := r.apiErr(t); e.Code != "bad_request" {
				t.Errorf("error code %q", e.Code)
			}
			var got settings
			get(t, s, "/api/settings").decode(t, &got)
			if got != tc.want {
				t.Errorf("GET after PUT = %+v, want %+v", got, tc.want)
			}
		})
	}

	// Dark mode is stamped on pages.
	if r := get(t, s, "/orders"); !strings.Contains(r.body, `data-theme="dark"`) {
		t.Error("dark mode not stamped on the page")
	}
}

func TestMethodNotAllowed(t *testing.T) {
	s := newTestSite(t, Options{})
	tests := []struct{ method, path, allow string }{
		{"DELETE", "/api/customers", "GET, POST"},
		{"PUT", "/api/customers/c1", "GET"},
		{"POST", "/api/orders", "GET"},
		{"POST", "/api/orders/export", "GET"},
		{"POST", "/api/settings", "GET, PUT"},
		{"GET", "/api/login", "POST"},
		{"GET", "/api/logout", "POST"},
		{"POST", "/api/health", "GET"},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := do(t, s, req{method: tc.method, path: tc.path})
			if r.code != 405 || r.header.Get("Allow") != tc.allow {
				t.Fatalf("code %d Allow %q: %s", r.code, r.header.Get("Allow"), r.body)
			}
			if e := r.apiErr(t); e.Code != "method_not_allowed" {
				t.Errorf("code %q", e.Code)
			}
		})
	}
}

func TestHealth(t *testing.T) {
	s := newTestSite(t, Options{})
	r := get(t, s, "/api/health")
	var h struct {
		Status string    `json:"status"`
		Time   time.Time `json:"time"`
	}
	r.decode(t, &h)
	if r.code != 200 || h.Status != "ok" || !h.Time.Equal(testNow) {
		t.Errorf("health %d %s", r.code, r.body)
	}
	if r := get(t, s, "/healthz"); r.code != 200 || strings.TrimSpace(r.body) != "ok" {
		t.Errorf("healthz %d %q", r.code, r.body)
	}
	if r := get(t, s, "/api/nothing"); r.code != 404 || r.apiErr(t).Code != "not_found" {
		t.Errorf("unknown API route: %d %s", r.code, r.body)
	}
}

func sessionCookie(r response) *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == SessionCookie {
			return c
		}
	}
	return nil
}

func TestLogin(t *testing.T) {
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	tests := []struct {
		name       string
		body       string
		headers    map[string]string
		code       int
		errCode    string
		location   string
		wantCookie bool
	}{
		{"json ok", `{"username":"admin","password":"demo-password"}`, nil, 200, "", "", true},
		{"json ok with next", `{"username":" admin ","password":"demo-password","next":"/orders?status=paid"}`, nil, 200, "", "", true},
		{"json wrong password", `{"username":"admin","password":"nope"}`, nil, 401, "invalid_credentials", "", false},
		{"json unknown user", `{"username":"root","password":"demo-password"}`, nil, 401, "invalid_credentials", "", false},
		{"json missing fields", `{"username":""}`, nil, 400, "validation_failed", "", false},
		{"json garbage", `{`, nil, 400, "bad_request", "", false},
		{"form ok", "username=admin&password=demo-password&next=%2Fsettings", form, 303, "", "/settings", true},
		{"form ok, offsite next ignored", "username=admin&password=demo-password&next=%2F%2Fevil.example", form, 303, "", "/customers", true},
		{"form wrong password", "username=admin&password=x&next=%2Forders", form, 303, "", "/login?error=invalid&next=%2Forders", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSite(t, Options{})
			r := do(t, s, req{method: "POST", path: "/api/login", body: tc.body, headers: tc.headers})
			if r.code != tc.code {
				t.Fatalf("code %d, want %d: %s", r.code, tc.code, r.body)
			}
			if tc.errCode != "" {
				if e := r.apiErr(t); e.Code != tc.errCode {
					t.Errorf("error code %q, want %q", e.Code, tc.errCode)
				}
			}
			if tc.location != "" && r.header.Get("Location") != tc.location {
				t.Errorf("Location %q, want %q", r.header.Get("Location"), tc.location)
			}
			c := sessionCookie(r)
			if (c != nil) != tc.wantCookie {
				t.Fatalf("session cookie %v, want %v", c, tc.wantCookie)
			}
			if c == nil {
				return
			}
			if !c.HttpOnly || c.Path != "/" {
				t.Errorf("cookie %+v should be HttpOnly with Path=/", c)
			}
			var sess struct {
				User *string `json:"user"`
			}
			do(t, s, req{path: "/api/session", cookies: []*http.Cookie{c}}).decode(t, &sess)
			if sess.User == nil || *sess.User != "admin" {
				t.Errorf("session user %v", sess.User)
			}
			if p := do(t, s, req{path: "/customers", cookies: []*http.Cookie{c}}); !strings.Contains(p.body, `data-user="admin"`) {
				t.Error("signed-in user not stamped on the page")
			}
			// Logout ends the session.
			out := do(t, s, req{method: "POST", path: "/api/logout", cookies: []*http.Cookie{c}})
			if out.code != 200 {
				t.Fatalf("logout %d %s", out.code, out.body)
			}
			if cleared := sessionCookie(out); cleared == nil || cleared.MaxAge >= 0 {
				t.Errorf("logout did not clear the cookie: %v", cleared)
			}
			sess.User = nil
			do(t, s, req{path: "/api/session", cookies: []*http.Cookie{c}}).decode(t, &sess)
			if sess.User != nil {
				t.Errorf("still signed in as %q after logout", *sess.User)
			}
		})
	}
}

func TestCustomUsers(t *testing.T) {
	s := newTestSite(t, Options{Users: map[string]string{"ops": "s3cret"}})
	if r := do(t, s, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"demo-password"}`}); r.code != 401 {
		t.Errorf("default user still accepted: %d", r.code)
	}
	if r := do(t, s, req{method: "POST", path: "/api/login", body: `{"username":"ops","password":"s3cret"}`}); r.code != 200 {
		t.Errorf("configured user rejected: %d %s", r.code, r.body)
	}
}

func TestRequireLogin(t *testing.T) {
	s := newTestSite(t, Options{RequireLogin: true})
	anon := []struct {
		path     string
		code     int
		location string
	}{
		{"/customers", 303, "/login?next=%2Fcustomers"},
		{"/orders?status=paid", 303, "/login?next=%2Forders%3Fstatus%3Dpaid"},
		{"/settings", 303, "/login?next=%2Fsettings"},
		{"/", 303, "/login?next=%2F"},
		{"/customers?inject=flaky", 303, "/login?next=%2Fcustomers%3Finject%3Dflaky&inject=flaky"},
		{"/login", 200, ""},
		{"/static/app.css", 200, ""},
		{"/healthz", 200, ""},
		{"/api/health", 200, ""},
		{"/api/session", 200, ""},
		{"/api/customers", 401, ""},
		{"/api/orders/export", 401, ""},
		{"/api/settings", 401, ""},
		{"/no-such-page", 404, ""},
	}
	for _, tc := range anon {
		t.Run("anonymous "+tc.path, func(t *testing.T) {
			r := get(t, s, tc.path)
			if r.code != tc.code {
				t.Fatalf("code %d, want %d", r.code, tc.code)
			}
			if tc.location != "" && r.header.Get("Location") != tc.location {
				t.Errorf("Location %q, want %q", r.header.Get("Location"), tc.location)
			}
			if tc.code == 401 && r.apiErr(t).Code != "unauthorized" {
				t.Errorf("401 body %s", r.body)
			}
		})
	}
	login := do(t, s, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"demo-password"}`})
	c := sessionCookie(login)
	if c == nil {
		t.Fatalf("login failed: %d %s", login.code, login.body)
	}
	for _, p := range []string{"/customers", "/orders", "/settings", "/api/customers", "/api/orders"} {
		if r := do(t, s, req{path: p, cookies: []*http.Cookie{c}}); r.code != 200 {
			t.Errorf("signed in, %s = %d", p, r.code)
		}
	}
	if r := do(t, s, req{path: "/customers", cookies: []*http.Cookie{{Name: SessionCookie, Value: "forged"}}}); r.code != 303 {
		t.Errorf("forged session accepted: %d", r.code)
	}
	if r := get(t, s, "/login"); !strings.Contains(r.body, `data-require-login="true"`) {
		t.Error("RequireLogin not stamped on the page")
	}
}

func TestReset(t *testing.T) {
	s := newTestSite(t, Options{})
	before := get(t, s, "/api/orders/export").body
	do(t, s, req{method: "POST", path: "/api/customers", body: `{"name":"Jane","email":"jane@example.com"}`})
	do(t, s, req{method: "PUT", path: "/api/settings", body: `{"dark_mode":true}`})
	c := sessionCookie(do(t, s, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"demo-password"}`}))

	s.Reset()

	if n := customerCount(t, s); n != 5 {
		t.Errorf("%d customers after Reset", n)
	}
	var st settings
	get(t, s, "/api/settings").decode(t, &st)
	if st.DarkMode {
		t.Error("settings survived Reset")
	}
	if get(t, s, "/api/orders/export").body != before {
		t.Error("orders differ after Reset")
	}
	var sess struct {
		User *string `json:"user"`
	}
	do(t, s, req{path: "/api/session", cookies: []*http.Cookie{c}}).decode(t, &sess)
	if sess.User != nil {
		t.Error("session survived Reset")
	}
	var created customerJSON
	do(t, s, req{method: "POST", path: "/api/customers", body: `{"name":"Jane","email":"jane@example.com"}`}).decode(t, &created)
	if created.ID != "c6" {
		t.Errorf("ids not reset: %s", created.ID)
	}
}

func TestParseInject(t *testing.T) {
	tests := []struct {
		in   string
		want inject
		str  string
	}{
		{"", 0, ""},
		{"slow", injectSlow, "slow"},
		{"FAKESUCCESS", injectFakeSuccess, "fakeSuccess"},
		{"slow,flaky", injectSlow | injectFlaky, "slow flaky"},
		{"error500 slow", injectSlow | injectError500, "slow error500"},
		{"slow+fakeSuccess", injectSlow | injectFakeSuccess, "slow fakeSuccess"},
		{"bogus,flaky", injectFlaky, "flaky"},
	}
	for _, tc := range tests {
		got := parseInject(tc.in)
		if got != tc.want || got.String() != tc.str {
			t.Errorf("parseInject(%q) = %v %q, want %v %q", tc.in, got, got.String(), tc.want, tc.str)
		}
	}
}

func TestInjectWrites(t *testing.T) {
	type check struct {
		code        int
		stored      bool // the write took effect
		wantErrCode string
	}
	const createBody = `{"name":"Jane","email":"jane@example.com","tier":"pro"}`
	tests := []struct {
		name    string
		path    string // query appended to the API path
		headers map[string]string
		want    check
	}{
		{"none", "", nil, check{201, true, ""}},
		{"flaky leaves the API alone", "", map[string]string{InjectHeader: "flaky"}, check{201, true, ""}},
		{"fakeSuccess header", "", map[string]string{InjectHeader: "fakeSuccess"}, check{201, false, ""}},
		{"fakeSuccess query", "?inject=fakeSuccess", nil, check{201, false, ""}},
		{"error500 header", "", map[string]string{InjectHeader: "error500"}, check{500, false, "internal"}},
		{"error500 query", "?inject=error500", nil, check{500, false, "internal"}},
		{"error500 wins over fakeSuccess", "", map[string]string{InjectHeader: "fakeSuccess,error500"}, check{500, false, "internal"}},
	}
	for _, tc := range tests {
		t.Run("customers/"+tc.name, func(t *testing.T) {
			s := newTestSite(t, Options{})
			r := do(t, s, req{method: "POST", path: "/api/customers" + tc.path, body: createBody, headers: tc.headers})
			if r.code != tc.want.code {
				t.Fatalf("code %d, want %d: %s", r.code, tc.want.code, r.body)
			}
			if tc.want.wantErrCode != "" && r.apiErr(t).Code != tc.want.wantErrCode {
				t.Errorf("body %s", r.body)
			}
			if r.code == 201 {
				var c customerJSON
				r.decode(t, &c)
				if c.ID != "c6" || c.Name != "Jane" {
					t.Errorf("answer %+v does not look like a real create", c)
				}
			}
			stored := customerCount(t, s) == 6
			if get(t, s, "/api/customers/c6").code == 200 != stored {
				t.Error("list and GET by id disagree")
			}
			if stored != tc.want.stored {
				t.Errorf("stored = %v, want %v", stored, tc.want.stored)
			}
		})
		t.Run("settings/"+tc.name, func(t *testing.T) {
			s := newTestSite(t, Options{})
			r := do(t, s, req{method: "PUT", path: "/api/settings" + tc.path, body: `{"weekly_report":true}`, headers: tc.headers})
			wantCode := tc.want.code
			if wantCode == 201 {
				wantCode = 200
			}
			if r.code != wantCode {
				t.Fatalf("code %d, want %d: %s", r.code, wantCode, r.body)
			}
			if r.code == 200 {
				var got settings
				r.decode(t, &got)
				if !got.WeeklyReport {
					t.Errorf("answer %+v does not show the change", got)
				}
			}
			var cur settings
			get(t, s, "/api/settings").decode(t, &cur)
			if cur.WeeklyReport != tc.want.stored {
				t.Errorf("stored = %v, want %v", cur.WeeklyReport, tc.want.stored)
			}
		})
	}
}

func TestInjectValidationStillApplies(t *testing.T) {
	s := newTestSite(t, Options{})
	r := do(t, s, req{method: "POST", path: "/api/customers", body: `{"name":""}`, headers: map[string]string{InjectHeader: "fakeSuccess"}})
	if r.code != 400 {
		t.Errorf("fakeSuccess skipped validation: %d %s", r.code, r.body)
	}
}

func TestInjectSparesReadsAndLogin(t *testing.T) {
	s := newTestSite(t, Options{})
	h := map[string]string{InjectHeader: "error500,fakeSuccess"}
	for _, p := range []string{"/api/customers", "/api/orders", "/api/orders/export", "/api/settings", "/api/health"} {
		if r := do(t, s, req{path: p, headers: h}); r.code != 200 {
			t.Errorf("GET %s under error500 = %d", p, r.code)
		}
	}
	login := do(t, s, req{method: "POST", path: "/api/login", body: `{"username":"admin","password":"demo-password"}`, headers: h})
	c := sessionCookie(login)
	if login.code != 200 || c == nil {
		t.Fatalf("login under error500 = %d", login.code)
	}
	var sess struct {
		User *string `json:"user"`
	}
	do(t, s, req{path: "/api/session", cookies: []*http.Cookie{c}}).decode(t, &sess)
	if sess.User == nil {
		t.Error("fakeSuccess login did not create a session")
	}
	if r := do(t, s, req{method: "POST", path: "/api/logout", headers: h}); r.code != 200 {
		t.Errorf("logout under error500 = %d", r.code)
	}
}

func TestInjectSlow(t *testing.T) {
	const delay = 600 * time.Millisecond // long enough that an undelayed request on a loaded machine stays under it
	s := newTestSite(t, Options{SlowDelay: delay})

	start := time.Now()
	r := do(t, s, req{path: "/api/customers", headers: map[string]string{InjectHeader: "slow"}})
	if took := time.Since(start); r.code != 200 || took < delay {
		t.Errorf("slow GET answered %d after %v, want 200 after >= %v", r.code, took, delay)
	}
	start = time.Now()
	r = do(t, s, req{method: "POST", path: "/api/customers?inject=slow", body: `{"name":"A","email":"a@example.com"}`})
	if took := time.Since(start); r.code != 201 || took < delay {
		t.Errorf("slow POST answered %d after %v", r.code, took)
	}
	start = time.Now()
	get(t, s, "/api/health?inject=slow")
	if took := time.Since(start); took >= delay {
		t.Errorf("health was delayed (%v)", took)
	}
	start = time.Now()
	get(t, s, "/api/customers")
	if took := time.Since(start); took >= delay {
		t.Errorf("a request without inject was delayed (%v)", took)
	}

	// A client that gives up ends the wait without an answer.
	ctx, cancel := context.WithCancel(context.Background())
	hr := httptest.NewRequest("GET", "/api/customers?inject=slow", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { s.Handler().ServeHTTP(rec, hr); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(delay / 2):
		t.Error("handler kept sleeping after the client went away")
	}

	// Without SlowDelay the delay is 1-2 s.
	d := newTestSite(t, Options{})
	for range 200 {
		d.mu.Lock()
		got := d.slowDelayLocked()
		d.mu.Unlock()
		if got < time.Second || got >= 2*time.Second {
			t.Fatalf("default slow delay %v outside [1s, 2s)", got)
		}
	}
}

func TestConcurrentCreates(t *testing.T) {
	s := newTestSite(t, Options{})
	const n = 24
	var wg sync.WaitGroup
	ids := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hr := httptest.NewRequest("POST", "/api/customers", strings.NewReader(fmt.Sprintf(`{"name":"C%d","email":"c%d@example.com"}`, i, i)))
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, hr)
			var c customerJSON
			_ = json.Unmarshal(rec.Body.Bytes(), &c)
			ids[i] = c.ID
			// Reads interleave with writes.
			s.Handler().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/orders?status=paid", nil))
		}()
	}
	wg.Wait()
	slices.Sort(ids)
	if len(slices.Compact(ids)) != n || ids[0] == "" {
		t.Errorf("ids not unique: %v", ids)
	}
	if got := customerCount(t, s); got != 5+n {
		t.Errorf("%d customers, want %d", got, 5+n)
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "/customers",
		"/orders?status=x":     "/orders?status=x",
		"//evil.example":       "/customers",
		`/\evil.example`:       "/customers",
		"https://evil.example": "/customers",
		"/api/orders/export":   "/customers",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSiteWideInject: Options.Inject applies to requests that ask for
// nothing, pages and API alike.
func TestSiteWideInject(t *testing.T) {
	s := New(Options{Inject: "fakeSuccess"})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/api/customers", "application/json", strings.NewReader(`{"name":"Zed","email":"zed@example.com","tier":"pro"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("fake success answered %d", resp.StatusCode)
	}
	list, err := http.Get(srv.URL + "/api/customers?q=zed")
	if err != nil {
		t.Fatal(err)
	}
	defer list.Body.Close()
	b, _ := io.ReadAll(list.Body)
	if strings.Contains(string(b), "zed@example.com") {
		t.Fatalf("fakeSuccess stored the customer: %s", b)
	}
	page, err := http.Get(srv.URL + "/customers")
	if err != nil {
		t.Fatal(err)
	}
	defer page.Body.Close()
	pb, _ := io.ReadAll(page.Body)
	if !strings.Contains(string(pb), `data-inject="fakeSuccess"`) {
		t.Fatalf("page not marked with the site-wide inject mode")
	}
}
