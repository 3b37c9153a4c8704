package demosite

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Paging limits of GET /api/orders.
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

// maxBody caps request bodies.
const maxBody = 64 << 10

// errorBody is the shape of every API error: {"error":{code,message,fields}}.
type errorBody struct {
	Error apiError `json:"error"`
}

type apiError struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields"`
}

type customerJSON struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Email      string    `json:"email"`
	Tier       string    `json:"tier"`
	OrderCount int       `json:"order_count"`
	CreatedAt  time.Time `json:"created_at"`
}

type orderJSON struct {
	ID           string    `json:"id"`
	CustomerID   string    `json:"customer_id"`
	CustomerName string    `json:"customer_name"`
	Status       string    `json:"status"`
	Total        float64   `json:"total"`
	Currency     string    `json:"currency"`
	Items        int       `json:"items"`
	CreatedAt    time.Time `json:"created_at"`
}

type customerList struct {
	Items []customerJSON `json:"items"`
	Total int            `json:"total"`
}

type orderPage struct {
	Items      []orderJSON `json:"items"`
	Total      int         `json:"total"`
	Offset     int         `json:"offset"`
	Limit      int         `json:"limit"`
	NextOffset *int        `json:"next_offset"`
}

type orderExport struct {
	Items  []orderJSON `json:"items"`
	Total  int         `json:"total"`
	Status string      `json:"status"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, message string, fields map[string]string) {
	if fields == nil {
		fields = map[string]string{}
	}
	writeJSON(w, status, errorBody{Error: apiError{Code: code, Message: message, Fields: fields}})
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow ...string) {
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeError(w, http.StatusMethodNotAllowed, "method_not_allowed",
		fmt.Sprintf("%s is not allowed on %s; use %s.", r.Method, r.URL.Path, strings.Join(allow, " or ")), nil)
}

func allowed(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m || (m == http.MethodGet && r.Method == http.MethodHead) {
			return true
		}
	}
	methodNotAllowed(w, r, methods...)
	return false
}

// decodeJSON reads r's JSON body into v, whatever its Content-Type says (so
// `curl -d '{...}'` works). On failure it writes the error response and
// returns false.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any, strict bool) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		msg := "The request body is not valid JSON: " + err.Error()
		if errors.Is(err, io.EOF) {
			msg = "The request body is empty; send a JSON object."
		}
		writeError(w, http.StatusBadRequest, "bad_request", msg, nil)
		return false
	}
	return true
}

func (s *Site) customerJSONLocked(c customer) customerJSON {
	return customerJSON{ID: c.ID, Name: c.Name, Email: c.Email, Tier: c.Tier, OrderCount: s.st.orderCount(c.ID), CreatedAt: c.CreatedAt}
}

func (s *Site) orderJSONLocked(o order) orderJSON {
	c, _ := s.st.customerByID(o.CustomerID)
	return orderJSON{
		ID: o.ID, CustomerID: o.CustomerID, CustomerName: c.Name, Status: o.Status,
		Total: float64(o.TotalCents) / 100, Currency: "USD", Items: o.Items, CreatedAt: o.CreatedAt,
	}
}

// GET /api/customers?q=&tier=   POST /api/customers
func (s *Site) handleCustomers(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodGet, http.MethodPost) {
		return
	}
	if r.Method == http.MethodPost {
		s.createCustomer(w, r)
		return
	}
	q := r.URL.Query()
	tier := strings.ToLower(strings.TrimSpace(q.Get("tier")))
	if tier != "" && !validTier(tier) {
		writeError(w, http.StatusBadRequest, "validation_failed", "Invalid query parameters.",
			map[string]string{"tier": "Tier must be one of free, pro, enterprise."})
		return
	}
	s.mu.Lock()
	list := customerList{Items: []customerJSON{}}
	for _, c := range s.st.searchCustomers(q.Get("q"), tier) {
		list.Items = append(list.Items, s.customerJSONLocked(c))
	}
	s.mu.Unlock()
	list.Total = len(list.Items)
	writeJSON(w, http.StatusOK, list)
}

var emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s.]+$`)

type customerInput struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Tier  string `json:"tier"`
}

// validate normalises in and returns field errors, if any.
func (in *customerInput) validate() map[string]string {
	fields := map[string]string{}
	in.Name = strings.TrimSpace(in.Name)
	in.Email = strings.TrimSpace(in.Email)
	in.Tier = strings.ToLower(strings.TrimSpace(in.Tier))
	switch {
	case in.Name == "":
		fields["name"] = "Name is required."
	case len([]rune(in.Name)) > 100:
		fields["name"] = "Name must be at most 100 characters."
	}
	switch {
	case in.Email == "":
		fields["email"] = "Email is required."
	case !emailRE.MatchString(in.Email) || len(in.Email) > 254:
		fields["email"] = "Enter a valid email address, like name@example.com."
	}
	if in.Tier == "" {
		in.Tier = "free"
	} else if !validTier(in.Tier) {
		fields["tier"] = "Tier must be one of free, pro, enterprise."
	}
	return fields
}

func (s *Site) createCustomer(w http.ResponseWriter, r *http.Request) {
	var in customerInput
	if !decodeJSON(w, r, &in, false) {
		return
	}
	if fields := in.validate(); len(fields) > 0 {
		writeError(w, http.StatusBadRequest, "validation_failed", "Please fix the highlighted fields.", fields)
		return
	}
	now := s.clock().UTC()
	s.mu.Lock()
	if _, dup := s.st.customerByEmail(in.Email); dup {
		s.stats.CustomerConflicts++
		s.mu.Unlock()
		writeError(w, http.StatusConflict, "conflict", "A customer with this email already exists.",
			map[string]string{"email": "A customer with this email already exists."})
		return
	}
	c := customer{ID: fmt.Sprintf("c%d", s.st.nextCustomerNo), Name: in.Name, Email: in.Email, Tier: in.Tier, CreatedAt: now}
	if !injectOf(r).has(injectFakeSuccess) { // fakeSuccess: answer as if stored, store nothing
		s.st.customers = append(s.st.customers, c)
		s.st.nextCustomerNo++
		s.stats.CustomersCreated++
	} else {
		s.stats.CustomersFaked++
	}
	out := s.customerJSONLocked(c)
	s.mu.Unlock()
	w.Header().Set("Location", "/api/customers/"+c.ID)
	writeJSON(w, http.StatusCreated, out)
}

// GET /api/customers/{id}
func (s *Site) handleCustomer(w http.ResponseWriter, r *http.Request) {
	s.serveByID(w, r, "customer", func(id string) (any, bool) {
		c, ok := s.st.customerByID(id)
		if !ok {
			return nil, false
		}
		return s.customerJSONLocked(c), true
	})
}

// serveByID answers GET .../{id} with the JSON that find returns under the
// site lock, or a 404 naming what was missing.
func (s *Site) serveByID(w http.ResponseWriter, r *http.Request, what string, find func(id string) (any, bool)) {
	if !allowed(w, r, http.MethodGet) {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	out, ok := find(id)
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "No "+what+" "+strconv.Quote(id)+".", nil)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// parseOrderFilter reads status= and customer= ("all" or empty status means
// any). It adds problems to fields.
func parseOrderFilter(q url.Values, fields map[string]string) orderFilter {
	f := orderFilter{
		Status:     strings.ToLower(strings.TrimSpace(q.Get("status"))),
		CustomerID: strings.TrimSpace(q.Get("customer")),
	}
	if f.Status == "all" {
		f.Status = ""
	}
	if f.Status != "" && !validStatus(f.Status) {
		fields["status"] = "Status must be one of all, pending, paid, shipped, cancelled."
	}
	return f
}

// parseFormat reads format= (json or csv); empty means csv when the client
// accepts only text/csv, json otherwise.
func parseFormat(r *http.Request, fields map[string]string) string {
	f := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("format")))
	switch f {
	case "json", "csv":
		return f
	case "":
		if accept := r.Header.Get("Accept"); strings.Contains(accept, "text/csv") && !strings.Contains(accept, "json") {
			return "csv"
		}
		return "json"
	}
	fields["format"] = "Format must be json or csv."
	return ""
}

func intParam(q url.Values, name string, def, lo, hi int, fields map[string]string) int {
	v := strings.TrimSpace(q.Get(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		if hi == math.MaxInt {
			fields[name] = fmt.Sprintf("%s must be a whole number of at least %d.", name, lo)
		} else {
			fields[name] = fmt.Sprintf("%s must be a whole number from %d to %d.", name, lo, hi)
		}
		return def
	}
	return n
}

// GET /api/orders?status=&customer=&offset=&limit=&format=
func (s *Site) handleOrders(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodGet) {
		return
	}
	q := r.URL.Query()
	fields := map[string]string{}
	f := parseOrderFilter(q, fields)
	offset := intParam(q, "offset", 0, 0, math.MaxInt, fields)
	limit := intParam(q, "limit", defaultPageSize, 1, maxPageSize, fields)
	format := parseFormat(r, fields)
	if len(fields) > 0 {
		writeError(w, http.StatusBadRequest, "validation_failed", "Invalid query parameters.", fields)
		return
	}
	s.mu.Lock()
	all := s.st.filterOrders(f)
	page := orderPage{Items: []orderJSON{}, Total: len(all), Offset: offset, Limit: limit}
	for i := offset; i < len(all) && i < offset+limit; i++ {
		page.Items = append(page.Items, s.orderJSONLocked(all[i]))
	}
	s.mu.Unlock()
	if next := offset + limit; next < page.Total {
		page.NextOffset = &next
	}
	if format == "csv" {
		writeCSV(w, r, exportName(f), page.Items)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// GET /api/orders/export?status=&customer=&format=json|csv
func (s *Site) handleOrdersExport(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodGet) {
		return
	}
	fields := map[string]string{}
	f := parseOrderFilter(r.URL.Query(), fields)
	format := parseFormat(r, fields)
	if len(fields) > 0 {
		writeError(w, http.StatusBadRequest, "validation_failed", "Invalid query parameters.", fields)
		return
	}
	s.mu.Lock()
	out := orderExport{Items: []orderJSON{}, Status: f.Status}
	for _, o := range s.st.filterOrders(f) {
		out.Items = append(out.Items, s.orderJSONLocked(o))
	}
	s.mu.Unlock()
	out.Total = len(out.Items)
	if out.Status == "" {
		out.Status = "all"
	}
	if format == "csv" {
		writeCSV(w, r, exportName(f), out.Items)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func exportName(f orderFilter) string {
	name := "orders"
	if f.Status != "" {
		name += "-" + f.Status
	}
	if f.CustomerID != "" {
		name += "-" + f.CustomerID
	}
	return name + ".csv"
}

// csvHeader is the header row of every orders CSV.
var csvHeader = []string{"id", "customer_id", "customer_name", "status", "total", "currency", "items", "created_at"}

func writeCSV(w http.ResponseWriter, r *http.Request, filename string, items []orderJSON) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	for _, o := range items {
		_ = cw.Write([]string{
			o.ID, o.CustomerID, o.CustomerName, o.Status,
			strconv.FormatFloat(o.Total, 'f', 2, 64), o.Currency, strconv.Itoa(o.Items),
			o.CreatedAt.Format(time.RFC3339),
		})
	}
	cw.Flush()
}

// GET /api/orders/{id}
func (s *Site) handleOrder(w http.ResponseWriter, r *http.Request) {
	s.serveByID(w, r, "order", func(id string) (any, bool) {
		o, ok := s.st.orderByID(id)
		if !ok {
			return nil, false
		}
		return s.orderJSONLocked(o), true
	})
}

// settingsInput is a PUT /api/settings body; absent fields keep their value.
type settingsInput struct {
	EmailNotifications *bool `json:"email_notifications"`
	WeeklyReport       *bool `json:"weekly_report"`
	DarkMode           *bool `json:"dark_mode"`
}

// settingsOwner is whose settings a request by user reads and writes: with
// RequireLogin each user has their own (so two identities see different
// data), otherwise everyone shares the site's ("").
func (s *Site) settingsOwner(user string) string {
	if !s.opts.RequireLogin {
		return ""
	}
	return user
}

// GET/PUT /api/settings
func (s *Site) handleSettings(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodGet, http.MethodPut) {
		return
	}
	owner := ""
	if s.opts.RequireLogin {
		if owner = s.sessionUser(r); owner == "" { // expired since withAuth looked
			writeError(w, http.StatusUnauthorized, "unauthorized", "Sign in first: POST /api/login.", nil)
			return
		}
	}
	if r.Method != http.MethodPut {
		s.mu.Lock()
		cur := s.st.settingsOf(owner)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, cur)
		return
	}
	var in settingsInput
	if !decodeJSON(w, r, &in, true) {
		return
	}
	s.mu.Lock()
	next := s.st.settingsOf(owner)
	if in.EmailNotifications != nil {
		next.EmailNotifications = *in.EmailNotifications
	}
	if in.WeeklyReport != nil {
		next.WeeklyReport = *in.WeeklyReport
	}
	if in.DarkMode != nil {
		next.DarkMode = *in.DarkMode
	}
	if !injectOf(r).has(injectFakeSuccess) {
		s.st.setSettings(owner, next)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, next)
}

// GET /api/health
func (s *Site) handleHealth(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodGet) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "time": s.clock().UTC()})
}
