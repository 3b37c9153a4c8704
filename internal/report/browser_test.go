package report

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// The tests below load reports in the test binary's one Chromium, through
// the engine, from file:// URLs as a user opens them.
func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Close()
	os.Exit(code)
}

// openReport writes rep to dir/report.html and loads it in a fresh
// browser context.
func openReport(t *testing.T, rep *Report, dir string, opts Options) (*engine.Page, string) {
	t.Helper()
	out := filepath.Join(dir, "report.html")
	if err := Write(rep, out, opts); err != nil {
		t.Fatal(err)
	}
	b := browsertest.Launch(t)
	ctx := testCtx(t)
	bc, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bc.Close() })
	p, err := bc.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Goto(ctx, "file://"+out); err != nil {
		t.Fatal(err)
	}
	return p, out
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// eval runs a JS function body's expression on the page.
func eval(t *testing.T, p *engine.Page, js string) string {
	t.Helper()
	v, err := p.Rod().Context(testCtx(t)).Eval("() => String(" + js + ")")
	if err != nil {
		t.Fatalf("eval %s: %v", js, err)
	}
	return v.Value.Str()
}

// visible counts the visible elements a CSS selector matches.
func visible(t *testing.T, p *engine.Page, css string) int {
	t.Helper()
	_, n, err := p.CountVisible(testCtx(t), engine.Target{CSS: css})
	if err != nil {
		t.Fatalf("count %s: %v", css, err)
	}
	return n
}

func click(t *testing.T, p *engine.Page, tg engine.Target) {
	t.Helper()
	ctx := testCtx(t)
	el, err := p.Resolve(ctx, tg)
	if err != nil {
		t.Fatalf("resolve %s: %v", tg, err)
	}
	if _, err := p.Click(ctx, el, engine.ActOptions{}); err != nil {
		t.Fatalf("click %s: %v", tg, err)
	}
}

// search types q into the search box and waits for the debounced filter
// to show want items (the page's own count), failing with what it shows.
func search(t *testing.T, p *engine.Page, q string, want int) {
	t.Helper()
	ctx := testCtx(t)
	el, err := p.Resolve(ctx, engine.Target{Role: "searchbox", Name: "search"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Fill(ctx, el, q, engine.ActOptions{}); err != nil {
		t.Fatal(err)
	}
	waitShown(t, p, want, strings.ToLower(strings.TrimSpace(q)))
}

// waitShown waits (bounded, not timed) until the page says it shows n
// items for the search query q.
func waitShown(t *testing.T, p *engine.Page, n int, q string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		got = eval(t, p, `(() => { const s = document.getElementById("shown"); return s.getAttribute("data-q") + "|" + s.textContent })()`)
		if got == q+"|"+strconv.Itoa(n) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the page shows (query|items) %s, want %s|%d", got, q, n)
}

// png is a valid 1x1 PNG.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// TestFailedCheckVisible: a session with a failed check, its expected and
// actual on screen without a click, its screenshots shown both copied
// beside the file and embedded.
func TestFailedCheckVisible(t *testing.T) {
	for _, embed := range []bool{false, true} {
		t.Run(fmt.Sprintf("embed=%v", embed), func(t *testing.T) {
			dir := t.TempDir()
			logs := filepath.Join(dir, "logs")
			shotDir := filepath.Join(logs, "s.shots", "c1")
			if err := os.MkdirAll(shotDir, 0o700); err != nil {
				t.Fatal(err)
			}
			_ = os.WriteFile(filepath.Join(shotDir, "02-click-before.png"), png, 0o600)
			_ = os.WriteFile(filepath.Join(shotDir, "02-click-after.png"), []byte("not a png"), 0o600)
			path := writeLog(t, logs, "s", sessionlog.Record{Type: sessionlog.RecUser, Turn: 1, Text: "add Ada"},
				call("c1", "add_customer", map[string]any{"name": "Ada"}),
				failedAdd("c1", &sessionlog.Shots{Before: "s.shots/c1/02-click-before.png", After: "s.shots/c1/02-click-after.png"}))
			rep, err := FromSession(path)
			if err != nil {
				t.Fatal(err)
			}
			p, out := openReport(t, rep, filepath.Join(dir, "out"), Options{Embed: embed})
			for _, css := range []string{"td.expected", "td.actual"} {
				if n := visible(t, p, "tr.check.st-failed "+css); n != 1 {
					t.Errorf("%d visible failed %s", n, css)
				}
			}
			if got := eval(t, p, `document.querySelector("tr.check.st-failed td.expected").textContent + "|" + document.querySelector("tr.check.st-failed td.actual").textContent`); got != "before+1=7|after=6" {
				t.Errorf("failed check shows %q", got)
			}
			// The healing attempts and the step's diagnosis are shown too.
			if n := visible(t, p, "span.heal"); n != 1 {
				t.Errorf("%d visible healing notes", n)
			}
			// Open the click step (it passed: folded) and see its image load.
			click(t, p, engine.Target{CSS: "details.step:nth-of-type(2) > summary"})
			waitImage(t, p)
			if n := visible(t, p, "figure.shot img"); n != 1 {
				t.Errorf("%d images shown, want 1 (the other file is not a PNG)", n)
			}
			_, statErr := os.Stat(filepath.Join(filepath.Dir(out), "report_files", "logs", "s.shots", "c1", "02-click-before.png"))
			if embed != (statErr != nil) {
				t.Errorf("embed=%v, copied screenshot: %v", embed, statErr)
			}
		})
	}
}

func waitImage(t *testing.T, p *engine.Page) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if eval(t, p, `(() => { const i = document.querySelector("figure.shot img"); return i && i.complete && i.naturalWidth })()`) == "1" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the screenshot did not load")
}

// batchReport builds a batch of n rows over two session logs (a run and a
// resume): every fifth row failed, every seventh uncertain, the others ok;
// the failed rows of the first run ran again in the second and failed
// again.
func batchReport(t testing.TB, n int) (*Report, map[string]int) {
	t.Helper()
	dir := t.TempDir()
	var first, second []sessionlog.Record
	var rows []Row
	counts := map[string]int{}
	for i := 1; i <= n; i++ {
		line := i + 1
		id := fmt.Sprintf("b-x-%d", line)
		c := call(id, "add_customer", map[string]any{"email": fmt.Sprintf("row%d@example.com", i)})
		c.Data = map[string]any{"batch": "b-x", "row": fmt.Sprintf("row%d@example.com", i), "line": line}
		row := Row{Line: line, Key: fmt.Sprintf("row%d@example.com", i), CallID: id, Session: "s1"}
		switch {
		case i%5 == 0:
			first = append(first, c, failedAdd(id, nil))
			second = append(second, c, failedAdd(id, nil))
			row.Status, row.Session = RowFailed, "s2"
			row.Error = &Error{Code: "check_failed", Message: "list_count_delta: before=6 after=6"}
			row.Failed = []Check{{Step: "steps[2]", Kind: "list_count_delta", Expected: "before+1=7", Actual: "after=6"}}
		case i%7 == 0:
			first = append(first, c)
			row.Status = RowUncertain
		default:
			first = append(first, c, passedAdd(id))
			row.Status, row.Result = RowOK, `{"id":7}`
		}
		counts[row.Status]++
		rows = append(rows, row)
	}
	writeLog(t, dir, "s1", first...)
	writeLog(t, dir, "s2", second...)
	rep, err := FromBatch(BatchSource{ID: "b-x", Macro: "add_customer", Input: "rows.csv", SessionDir: dir, Sessions: []string{"s1", "s2"}, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	return rep, counts
}

// TestBatchFilterAndJump: the failed filter leaves only the failed rows,
// and a row's link unfolds and scrolls to the steps of its call.
func TestBatchFilterAndJump(t *testing.T) {
	rep, counts := batchReport(t, 12) // rows 5 and 10 failed, 7 uncertain
	p, _ := openReport(t, rep, t.TempDir(), Options{})
	if n := visible(t, p, "tr.row"); n != 12 {
		t.Fatalf("%d rows visible before filtering, want 12", n)
	}
	if got := eval(t, p, `document.querySelector("#accuracy b").textContent`); got != "81.8%" { // 9 ok of 11
		t.Errorf("accuracy %q", got)
	}
	cases := []struct {
		filter string
		want   int
	}{
		{"failed", counts[RowFailed]},
		{"uncertain", counts[RowUncertain]},
		{"ok", counts[RowOK]},
		{"all", 12},
	}
	for _, tc := range cases {
		click(t, p, engine.Target{CSS: `button[data-filter="` + tc.filter + `"]`})
		if n := visible(t, p, "tr.row"); n != tc.want {
			t.Errorf("filter %s: %d rows visible, want %d", tc.filter, n, tc.want)
		}
		if tc.filter != "all" {
			if n := visible(t, p, `tr.row:not([data-s="`+tc.filter+`"])`); n != 0 {
				t.Errorf("filter %s: %d other rows visible", tc.filter, n)
			}
		}
		waitShown(t, p, tc.want, "")
	}
	// Row line 11 (the 10th, failed in both runs) links two runs.
	click(t, p, engine.Target{CSS: `button[data-filter="failed"]`})
	if n := eval(t, p, `document.querySelectorAll("#row-11 a.jump").length`); n != "2" {
		t.Fatalf("row 11 links %s runs, want 2", n)
	}
	anchor := strings.TrimPrefix(eval(t, p, `document.querySelector("#row-11 a.jump:last-child").getAttribute("href")`), "#")
	// Fold the call first, so the jump has to unfold it.
	eval(t, p, `document.getElementById("`+anchor+`").open = false`)
	click(t, p, engine.Target{CSS: `#row-11 a.jump:last-child`})
	if got := eval(t, p, `location.hash + " " + document.getElementById("`+anchor+`").open`); got != "#"+anchor+" true" {
		t.Errorf("after the jump: %s", got)
	}
	if got := eval(t, p, `(() => { const r = document.getElementById("`+anchor+`").getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight })()`); got != "true" {
		t.Errorf("the call's steps are not in view after the jump")
	}
	if got := eval(t, p, `document.querySelector("#`+anchor+` tr.check.st-failed td.actual").textContent`); got != "after=6" {
		t.Errorf("the jumped-to call shows %q", got)
	}
	if got := eval(t, p, `document.querySelector("#`+anchor+` .meta code:nth-of-type(2)").textContent`); got != "s2" {
		t.Errorf("the last run is in session %q, want s2", got)
	}
}

// TestThousandRows: a 1,000-row batch report loads, filters and searches
// (what it costs is BenchmarkRender's, not a timed assertion).
func TestThousandRows(t *testing.T) {
	rep, counts := batchReport(t, 1000)
	p, _ := openReport(t, rep, t.TempDir(), Options{})
	if n := visible(t, p, "tr.row"); n != 1000 {
		t.Fatalf("%d rows visible, want 1000", n)
	}
	click(t, p, engine.Target{CSS: `button[data-filter="failed"]`})
	if n := visible(t, p, "tr.row"); n != counts[RowFailed] {
		t.Errorf("failed filter: %d rows, want %d", n, counts[RowFailed])
	}
	// Search within the failed rows: row 500 is failed, row 501 is not.
	search(t, p, "row500@", 1)
	if got := eval(t, p, `[...document.querySelectorAll("tr.row")].filter(r => !r.hidden).map(r => r.id).join()`); got != "row-501" {
		t.Errorf("visible rows %q", got)
	}
	click(t, p, engine.Target{CSS: `button[data-filter="all"]`})
	search(t, p, "row50", 11) // row50, row500..row509
}

// TestSearchSession: the search box filters a session's calls and
// messages by their text, and an empty query shows everything again.
func TestSearchSession(t *testing.T) {
	path := writeLog(t, t.TempDir(), "s",
		sessionlog.Record{Type: sessionlog.RecUser, Turn: 1, Text: "add Ada Lovelace"},
		call("c1", "add_customer", map[string]any{"name": "Ada Lovelace"}), failedAdd("c1", nil),
		sessionlog.Record{Type: sessionlog.RecUser, Turn: 2, Text: "find grace"},
		call("c2", "find_customer", map[string]any{"query": "Grace Hopper"}), passedAdd("c2"),
	)
	rep, err := FromSession(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := openReport(t, rep, t.TempDir(), Options{})
	cases := []struct {
		q    string
		want []string
	}{
		{"lovelace", []string{"user", "add_customer"}},
		{"GRACE", []string{"user", "find_customer"}},
		{"after=6", []string{"add_customer"}}, // a check's actual value
		{"nothing like this", nil},
		{"", []string{"user", "add_customer", "user", "find_customer"}},
	}
	for _, tc := range cases {
		search(t, p, tc.q, len(tc.want))
		got := eval(t, p, `[...document.querySelectorAll(".item.f")].filter(e => !e.hidden).map(e => e.querySelector(".tool, .who").textContent).join()`)
		if got != strings.Join(tc.want, ",") {
			t.Errorf("search %q shows %q, want %q", tc.q, got, tc.want)
		}
	}
	click(t, p, engine.Target{CSS: `button[data-filter="failed"]`})
	if got := eval(t, p, `[...document.querySelectorAll(".item.f")].filter(e => !e.hidden).length`); got != "1" {
		t.Errorf("failed filter shows %s items, want the one failed call", got)
	}
}

// TestHostileContentAndNoNetwork: values from the log that are markup or
// point at a server render as text, run nothing and fetch nothing; the
// page loads nothing but its own file.
func TestHostileContentAndNoNetwork(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	script := `<script>window.__pwned=1</script>`
	img := `<img src="` + srv.URL + `/img" onerror="window.__pwned=2">`
	css := `<link rel="stylesheet" href="` + srv.URL + `/css"><style>@import url(` + srv.URL + `/import);</style>`
	hostile := script + img + css
	dir := t.TempDir()
	fail := failedAdd("c1", &sessionlog.Shots{Before: srv.URL + "/shot.png", After: "javascript:alert(1)"})
	fail.Error.Message = hostile
	fail.Tool = hostile
	fail.Verification.Checks = []any{check("steps[2]", "text_visible", "failed", hostile, `"><svg onload=window.__pwned=3>`)}
	path := writeLog(t, dir, "s",
		sessionlog.Record{Type: sessionlog.RecUser, Turn: 1, Text: hostile},
		sessionlog.Record{Type: sessionlog.RecSystem, Turn: 1, Event: "x" + script, Data: map[string]any{"u": img}},
		call("c1", hostile, map[string]any{"name": hostile}), fail)
	rep, err := FromSession(path)
	if err != nil {
		t.Fatal(err)
	}
	rep.Notes = append(rep.Notes, hostile)
	bsrc, err := FromBatch(BatchSource{ID: hostile, Macro: hostile, Input: hostile, Rows: []Row{{Line: 2, Key: hostile, Status: RowFailed, Result: hostile,
		Error: &Error{Code: hostile, Message: hostile}, Failed: []Check{{Step: hostile, Kind: hostile, Expected: hostile, Actual: hostile}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Report{"session": rep, "batch": bsrc} {
		t.Run(name, func(t *testing.T) {
			p, out := openReport(t, r, t.TempDir(), Options{})
			// Expand everything, so every value is in the layout.
			eval(t, p, `document.querySelectorAll("details").forEach(d => d.open = true)`)
			if got := eval(t, p, `window.__pwned`); got != "undefined" {
				t.Errorf("log content ran as script: __pwned=%s", got)
			}
			if got := eval(t, p, `document.querySelectorAll("main script, main img, main link, main style, main svg, header script, header img").length`); got != "0" {
				t.Errorf("%s elements from the log's markup", got)
			}
			if !strings.Contains(eval(t, p, `document.body.innerText`), script) {
				t.Errorf("the markup is not shown as text")
			}
			// Nothing but the report's own file and data: URIs.
			if got := eval(t, p, `[...document.querySelectorAll("[src],[href]")].map(e => e.getAttribute("src") || e.getAttribute("href")).filter(u => !/^(#|data:|report_files\/)/.test(u)).join(" ")`); got != "" {
				t.Errorf("the page names other resources: %s", got)
			}
			for _, r := range p.Requests(0) {
				if !strings.HasPrefix(r.URL, "file://"+out) && !strings.HasPrefix(r.URL, "data:") {
					t.Errorf("the page requested %s", r.URL)
				}
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the server got %d request(s) from the report", n)
			}
			html, _ := os.ReadFile(out)
			if strings.Contains(string(html), script) || strings.Contains(string(html), "<img src=\""+srv.URL) {
				t.Errorf("the HTML holds the log's markup unescaped")
			}
		})
	}
}
