package demosite

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPagesHaveLandmarks(t *testing.T) {
	s := newTestSite(t, Options{})
	common := []string{
		`<!doctype html>`, `<html lang="en">`, `<meta name="viewport"`, `<link rel="stylesheet" href="/static/app.css">`,
		`<main id="main"`,
	}
	chrome := []string{`<a class="skip-link" href="#main">`, `<nav class="nav" aria-label="Main">`, `<header class="topbar">`, `id="toasts" role="status" aria-live="polite"`}
	tests := []struct {
		path string
		want []string
	}{
		{"/customers", append(chrome,
			`<title>Customers · Demo Shop</title>`, `<h1>Customers</h1>`, `<a href="/customers" aria-current="page">`,
			`<script type="module" src="/static/customers.js">`,
			`data-testid="new-customer">`, `New customer</button>`,
			`<label for="customer-search">Search customers</label>`, `<input type="search" id="customer-search"`,
			`data-testid="customers-summary"`, `<tbody id="customers-body">`,
			`role="dialog" aria-modal="true" aria-labelledby="new-customer-title"`, `<h2 id="new-customer-title">New customer</h2>`,
			`<label for="customer-name">Name</label>`, `<label for="customer-email">Email</label>`, `<input type="email" id="customer-email"`,
			`<label id="customer-tier-label" for="customer-tier">Tier</label>`,
			`role="combobox" aria-haspopup="listbox" aria-expanded="false" aria-controls="customer-tier-listbox" aria-labelledby="customer-tier-label"`,
			`role="listbox"`, `role="option" id="customer-tier-free" data-value="free" aria-selected="true">Free</li>`,
			`data-value="pro" aria-selected="false">Pro</li>`, `data-value="enterprise" aria-selected="false">Enterprise</li>`,
			`>Save</button>`, `>Cancel</button>`, `aria-describedby="customer-name-error"`,
		)},
		{"/orders", append(chrome,
			`<h1>Orders</h1>`, `<label for="order-status-filter">Status</label>`, `<select id="order-status-filter"`,
			`<option value="">All</option>`, `<option value="pending">Pending</option>`, `<option value="paid">Paid</option>`,
			`<option value="shipped">Shipped</option>`, `<option value="cancelled">Cancelled</option>`,
			`data-testid="orders-summary"`, `<tbody id="orders-body">`, `data-testid="load-more">Load more</button>`,
			`href="/api/orders/export?format=csv" download`,
		)},
		{"/settings", append(chrome,
			`<h1>Settings</h1>`, `<label for="email-notifications">Email notifications</label>`,
			`<label for="weekly-report">Weekly report</label>`, `<label for="dark-mode">Dark mode</label>`,
			`<input type="checkbox" id="dark-mode"`, `data-testid="save-settings">Save settings</button>`,
		)},
		{"/login", []string{
			`<h1>Sign in</h1>`, `<form id="login-form" method="post" action="/api/login"`,
			`<label for="username">Username</label>`, `<label for="password">Password</label>`,
			`<input type="password" id="password"`, `id="login-error" role="alert"`, `data-testid="sign-in">Sign in</button>`,
		}},
		{"/login/verify", []string{
			`<h1>Two-step verification</h1>`, `<form id="verify-form" method="post" action="/api/login/verify"`,
			`<label for="code">One-time code</label>`, `<input type="text" id="code" name="code"`, `autocomplete="one-time-code"`,
			`id="verify-error" role="alert"`, `data-testid="verify">Verify</button>`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := get(t, s, tc.path)
			if r.code != 200 {
				t.Fatalf("code %d", r.code)
			}
			if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			for _, w := range append(common, tc.want...) {
				if !strings.Contains(r.body, w) {
					t.Errorf("page lacks %s", w)
				}
			}
			if n := strings.Count(r.body, "<h1"); n != 1 {
				t.Errorf("%d h1 elements, want 1", n)
			}
		})
	}
}

func TestPageStamps(t *testing.T) {
	s := newTestSite(t, Options{SlowDelay: 1500 * time.Millisecond})
	tests := []struct {
		path    string
		want    string
		notWant string
	}{
		{"/customers?inject=slow", `<html lang="en" data-inject="slow" data-inject-delay-ms="1500">`, ""},
		{"/orders?inject=flaky,fakeSuccess", `<html lang="en" data-inject="flaky fakeSuccess">`, "data-inject-delay-ms"},
		{"/settings?inject=error500", `<html lang="en" data-inject="error500">`, ""},
		{"/login?inject=%22%3E%3Cscript%3E", `<html lang="en">`, "<script>"},
		{"/customers", `<html lang="en">`, "data-inject"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := get(t, s, tc.path)
			if !strings.Contains(r.body, tc.want) {
				t.Errorf("want %s in\n%s", tc.want, r.body[:200])
			}
			if tc.notWant != "" && strings.Contains(r.body, tc.notWant) {
				t.Errorf("did not want %s", tc.notWant)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	s := newTestSite(t, Options{})
	tests := []struct {
		method, path string
		code         int
		location     string
		contentType  string
	}{
		{"GET", "/", 302, "/customers", ""},
		{"GET", "/?inject=slow", 302, "/customers?inject=slow", ""},
		{"HEAD", "/customers", 200, "", "text/html; charset=utf-8"},
		{"POST", "/customers", 405, "", ""},
		{"GET", "/customers/", 404, "", "text/html; charset=utf-8"},
		{"GET", "/nope", 404, "", "text/html; charset=utf-8"},
		{"GET", "/static/app.js", 200, "", "text/javascript; charset=utf-8"},
		{"GET", "/static/app.css", 200, "", "text/css; charset=utf-8"},
		{"GET", "/static/favicon.svg", 200, "", "image/svg+xml"},
		{"GET", "/static/", 404, "", ""},
		{"GET", "/static/customers.html", 404, "", ""},
		{"GET", "/static/missing.js", 404, "", ""},
		{"GET", "/favicon.ico", 301, "/static/favicon.svg", ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := do(t, s, req{method: tc.method, path: tc.path})
			if r.code != tc.code {
				t.Fatalf("code %d, want %d", r.code, tc.code)
			}
			if tc.location != "" && r.header.Get("Location") != tc.location {
				t.Errorf("Location %q, want %q", r.header.Get("Location"), tc.location)
			}
			if tc.contentType != "" && r.header.Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type %q, want %q", r.header.Get("Content-Type"), tc.contentType)
			}
		})
	}
}

var (
	idAttr  = regexp.MustCompile(`\sid="([^"]+)"`)
	idRefs  = regexp.MustCompile(`\s(for|aria-labelledby|aria-describedby|aria-controls|aria-activedescendant|href)="([^"]*)"`)
	testIDs = regexp.MustCompile(`data-testid="([^"]+)"`)
)

// TestHTMLReferences checks that every id is unique and every id reference
// (for=, aria-*=, #fragment links) points at an element of the same page.
func TestHTMLReferences(t *testing.T) {
	files, err := fs.Glob(staticFiles, "static/*.html")
	if err != nil || len(files) < 5 {
		t.Fatalf("pages: %v %v", files, err)
	}
	for _, f := range files {
		b, _ := staticFiles.ReadFile(f)
		page := string(b)
		ids := map[string]bool{}
		for _, m := range idAttr.FindAllStringSubmatch(page, -1) {
			if ids[m[1]] {
				t.Errorf("%s: duplicate id %q", f, m[1])
			}
			ids[m[1]] = true
		}
		for _, m := range idRefs.FindAllStringSubmatch(page, -1) {
			refs := strings.Fields(m[2])
			if m[1] == "href" {
				if !strings.HasPrefix(m[2], "#") {
					continue
				}
				refs = []string{m[2][1:]}
			}
			for _, id := range refs {
				if !ids[id] {
					t.Errorf("%s: %s=%q points at no element", f, m[1], id)
				}
			}
		}
		seen := map[string]bool{}
		for _, m := range testIDs.FindAllStringSubmatch(page, -1) {
			if seen[m[1]] {
				t.Errorf("%s: data-testid %q is used twice in the static markup", f, m[1])
			}
			seen[m[1]] = true
		}
		if strings.Contains(page, "http://") && !strings.Contains(f, "favicon") || strings.Contains(page, "https://") {
			t.Errorf("%s references an external URL", f)
		}
	}
}

// TestNoExternalAssets keeps the site self-contained: no CDN, no remote fonts.
func TestNoExternalAssets(t *testing.T) {
	err := fs.WalkDir(staticFiles, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := staticFiles.ReadFile(path)
		text := strings.ReplaceAll(string(b), `xmlns="http://www.w3.org/2000/svg"`, "")
		if strings.Contains(text, "http://") || strings.Contains(text, "https://") || strings.Contains(text, "@import") {
			t.Errorf("%s references something outside the site", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestListenAndServe(t *testing.T) {
	s := newTestSite(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var logs []string
	base := make(chan string, 1)
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(logs) == 0 && len(args) == 1 {
			base <- args[0].(string)
		}
		logs = append(logs, format)
	}
	done := make(chan error, 1)
	go func() { done <- ListenAndServe(ctx, "127.0.0.1:0", s, logf) }()

	var url string
	select {
	case url = <-base:
	case err := <-done:
		t.Fatalf("ListenAndServe returned early: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("no listening address logged")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("logged URL %q", url)
	}
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != "ok" {
		t.Errorf("healthz %d %q", resp.StatusCode, body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("shutdown returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe did not return after cancel")
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("server still answering after shutdown")
	}

	if err := ListenAndServe(context.Background(), "256.0.0.1:bad", s, nil); err == nil {
		t.Error("bad address accepted")
	}
}
