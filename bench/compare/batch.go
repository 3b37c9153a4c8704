package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
)

// The batch throughput scenario: `macrokit batch add_customer` over
// batchRows rows with --concurrency batchConcurrency against a sequential
// Playwright script doing the same flow (bench/playwright/batch.mjs), each
// on a fresh demo site behind its login. Its figure is a rate, so its ratio
// is ours / Playwright in rows per minute and must be at least the target.
const (
	batchKey         = "batch_add_customer_50"
	batchRows        = 50
	batchConcurrency = 2
)

// writeBatchRows writes the rows both sides add: unique emails, the three
// tiers in turn, plain cells (batch.mjs reads no quoting).
func writeBatchRows(dir string) (string, []string, error) {
	tiers := []string{"free", "pro", "enterprise"}
	var b strings.Builder
	b.WriteString("name,email,tier\n")
	emails := make([]string, 0, batchRows)
	for i := 1; i <= batchRows; i++ {
		e := fmt.Sprintf("bench%d@throughput.example", i)
		emails = append(emails, e)
		fmt.Fprintf(&b, "Bench Person %d,%s,%s\n", i, e, tiers[i%len(tiers)])
	}
	p := filepath.Join(dir, "rows.csv")
	return p, emails, os.WriteFile(p, []byte(b.String()), 0o644)
}

// batchSite is a fresh demo site that requires a login, as both sides see
// it: the flow includes signing in once.
func batchSite() (*demosite.Site, *httptest.Server) {
	site := demosite.New(demosite.Options{RequireLogin: true})
	return site, httptest.NewServer(site.Handler())
}

// checkBatchSite verifies a side's effect on its site: every row's customer
// stored exactly once, nothing else created, one login.
func checkBatchSite(site *demosite.Site, emails []string) error {
	for _, e := range emails {
		if n := site.CustomerCount(e); n != 1 {
			return fmt.Errorf("the site has %s %d times, want exactly once", e, n)
		}
	}
	if st := site.Stats(); st.CustomersCreated != len(emails) || st.Logins != 1 {
		return fmt.Errorf("the site counted %d customers created and %d logins, want %d and 1", st.CustomersCreated, st.Logins, len(emails))
	}
	return nil
}

// batchEnv is the environment both sides run in: the demo site's URL and
// login, and no browser download.
func batchEnv(url string) []string {
	return append(os.Environ(), "DEMO_URL="+url, "DEMO_USER="+demosite.DefaultUsername,
		"DEMO_PASSWORD="+demosite.DefaultPassword, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
}

// rateFigures is a whole-run measurement: the wall time of one process
// that handled rows rows.
func rateFigures(wall time.Duration, rows int, method string) *Figures {
	ms := float64(wall) / float64(time.Millisecond)
	return &Figures{MedianMS: round3(ms), N: rows, RowsPerMin: round3(float64(rows) / (ms / 60000)), Method: method}
}

// runBatchOurs times `macrokit batch add_customer --input rows.csv
// --concurrency 2` from its start to its exit, in a fresh working
// directory (its journal, report and session log go there), on a fresh
// site, and checks the rows and the site.
func runBatchOurs(bin, rows string, emails []string) (*Figures, error) {
	site, srv := batchSite()
	defer srv.Close()
	work, err := os.MkdirTemp("", "macrokit-bench-batch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	conf := filepath.Join(work, "macrokit.yaml")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		return nil, err
	}
	args := []string{"batch", "add_customer", "--input", rows, "--concurrency", fmt.Sprint(batchConcurrency), "--key", "email"}
	logf("macrokit %s", strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Dir = work
	cmd.Env = append(batchEnv(srv.URL), "MACROKIT_CONFIG="+conf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	want := fmt.Sprintf("%d row(s): %d ok, 0 failed", batchRows, batchRows)
	if err != nil || !strings.Contains(stderr.String(), want) {
		return nil, fmt.Errorf("batch: %v, want %q:\n%s", err, want, tail(stderr.String(), 20))
	}
	if err := checkBatchSite(site, emails); err != nil {
		return nil, err
	}
	return rateFigures(wall, batchRows, fmt.Sprintf("macrokit batch add_customer --input rows.csv --concurrency %d (login on demand, once)", batchConcurrency)), nil
}

// runBatchPlaywright times node batch.mjs from its start to its exit on a
// fresh site and checks the site; it also returns the script's _meta.
func runBatchPlaywright(root, node, rows string, emails []string) (*Figures, map[string]any, error) {
	dir := filepath.Join(root, "bench", "playwright")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@playwright", "test")); err != nil {
		return nil, nil, fmt.Errorf("%s/node_modules missing: run `cd bench/playwright && npm ci --no-audit --no-fund` (or make bench)", dir)
	}
	site, srv := batchSite()
	defer srv.Close()
	logf("%s batch.mjs %s %s (in bench/playwright)", node, srv.URL, rows)
	cmd := exec.Command(node, "batch.mjs", srv.URL, rows)
	cmd.Dir = dir
	cmd.Env = batchEnv(srv.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return nil, nil, fmt.Errorf("batch.mjs: %w\n%s", err, tail(stderr.String()+stdout.String(), 40))
	}
	var out struct {
		Rows   int            `json:"rows"`
		Method string         `json:"method"`
		Meta   map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Rows != batchRows {
		return nil, nil, fmt.Errorf("batch.mjs output (%v): %s", err, tail(stdout.String(), 20))
	}
	if err := checkBatchSite(site, emails); err != nil {
		return nil, nil, err
	}
	return rateFigures(wall, batchRows, "node batch.mjs, "+out.Method), out.Meta, nil
}
