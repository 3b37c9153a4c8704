package pageprimtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/browsertest"
	"github.com/macrokit/macrokit-go/internal/cli"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/internal/pageprimtest/generated"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

func TestMain(m *testing.M) {
	defer browsertest.Close()
	m.Run()
}

// the secret the search is filled with: a customer's email, echoed by
// the page's summary line ("1 customer matching “...”").
const secret = "ada@example.com"

type setup struct {
	d      *runtime.Dispatcher
	b      *engine.Browser
	url    string
	logDir string
	log    *sessionlog.Writer
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	b := browsertest.Launch(t)
	srv := httptest.NewServer(demosite.New(demosite.Options{}).Handler())
	t.Cleanup(srv.Close)
	reg, err := generated.Registry()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, sessionlog.NewID())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	d := &runtime.Dispatcher{Registry: reg, Primitives: generated.Primitives(), Pages: runtime.ContextPages(b), Log: log,
		Getenv: func(name string) string {
			if name == "DEMO_URL" {
				return srv.URL
			}
			return ""
		}}
	return &setup{d: d, b: b, url: srv.URL, logDir: dir, log: log}
}

func (s *setup) dispatch(t *testing.T, name, args string) *runtime.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out := s.d.Dispatch(ctx, runtime.Call{ID: "c-" + name, Name: name, Args: json.RawMessage(args)})
	if !out.OK {
		t.Fatalf("%s: %+v\nsteps: %+v", name, out.Error, out.Steps)
	}
	return out
}

// sessionText is the session log as written.
func (s *setup) sessionText(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(s.log.Path())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

type entry struct {
	Index  int            `json:"index"`
	Role   string         `json:"role"`
	Name   string         `json:"name"`
	Target *engine.Target `json:"target"`
}

// countColour counts the pixels of one colour in a PNG.
func countColour(t *testing.T, data []byte, r, g, b uint8) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			c := img.At(x, y)
			if rgba, ok := c.(interface {
				RGBA() (uint32, uint32, uint32, uint32)
			}); ok {
				cr, cg, cb, _ := rgba.RGBA()
				if uint8(cr>>8) == r && uint8(cg>>8) == g && uint8(cb>>8) == b {
					n++
				}
			}
		}
	}
	return n
}

// TestActionMenuAndAnnotatedScreenshot runs menu_customers in Chromium:
// the menu lists the demo page's visible buttons and links, each target
// resolving to exactly one element on a fresh copy of the page; the PNG is
// beside the session's screenshots, carries badges (which a plain
// screenshot of the same page has none of) and masks the secret the page
// echoes; and the secret is in neither the returned value nor the log.
func TestActionMenuAndAnnotatedScreenshot(t *testing.T) {
	s := newSetup(t)
	out := s.dispatch(t, "menu_customers", `{"query": "`+secret+`"}`)
	var res struct {
		Menu   []entry `json:"menu"`
		Shot   string  `json:"shot"`
		Badges []entry `json:"badges"`
	}
	if err := json.Unmarshal(out.Result, &res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out.Result), secret) {
		t.Errorf("the result carries the secret: %s", out.Result)
	}

	// The menu: the page's buttons and links, each with a unique target.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := s.b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Goto(ctx, s.url+"/customers"); err != nil {
		t.Fatal(err)
	}
	byName := map[string]entry{}
	targets := 0
	for _, e := range res.Menu {
		byName[e.Role+" "+e.Name] = e
		if e.Target == nil {
			continue
		}
		targets++
		if e.Target.Role == "" && e.Target.Label == "" && e.Target.TestID == "" && e.Target.CSS == "" {
			t.Errorf("entry %d: empty target %+v", e.Index, e.Target)
		}
		if n, err := p.Count(ctx, *e.Target); err != nil || n != 1 {
			t.Errorf("entry [%d] %s %q: target %s matches %d (err %v), want exactly 1", e.Index, e.Role, e.Name, e.Target, n, err)
		}
	}
	nc, ok := byName["button New customer"]
	if !ok || nc.Target == nil || nc.Target.Role != "button" || nc.Target.Name != "New customer" {
		t.Errorf("menu lacks button New customer with its target: %+v", res.Menu)
	}
	for _, hidden := range []string{"button Save", "button Cancel"} {
		if _, ok := byName[hidden]; ok {
			t.Errorf("menu lists %s of the closed dialog", hidden)
		}
	}
	if targets < len(res.Menu)/2 || len(res.Menu) < 5 {
		t.Errorf("%d entries, %d with targets: %+v", len(res.Menu), targets, res.Menu)
	}

	// The annotated screenshot: beside the session's screenshots, badged
	// where a plain one is not, the echoed secret masked.
	if !strings.HasPrefix(res.Shot, s.logDir) || !strings.Contains(filepath.ToSlash(res.Shot), ".shots/c-menu_customers/") || !strings.HasSuffix(res.Shot, "-annotated-customers.png") {
		t.Errorf("shot path %q", res.Shot)
	}
	annotated, err := os.ReadFile(res.Shot)
	if err != nil {
		t.Fatal(err)
	}
	var plain []byte
	for _, st := range out.Steps {
		if st.Kind == "screenshot" {
			plain, _ = st.Detail["png"].([]byte)
		}
	}
	if len(plain) == 0 {
		t.Fatal("no plain screenshot in the evidence")
	}
	badge, plainBadge := countColour(t, annotated, 0xff, 0x00, 0xaa), countColour(t, plain, 0xff, 0x00, 0xaa)
	if badge < 50*len(res.Badges) || plainBadge != 0 {
		t.Errorf("badge pixels: annotated %d (%d badges), plain %d", badge, len(res.Badges), plainBadge)
	}
	mask := engine.MaskColor
	if n := countColour(t, annotated, mask.R, mask.G, mask.B); n < 200 {
		t.Errorf("mask pixels in the annotated screenshot: %d, want the search box and the summary covered", n)
	}
	if len(res.Badges) == 0 || len(res.Badges) > len(res.Menu)+5 {
		t.Errorf("badges %d, menu %d", len(res.Badges), len(res.Menu))
	}
	for _, b := range res.Badges {
		if e, ok := byName[b.Role+" "+b.Name]; ok && e.Index != b.Index {
			t.Errorf("badge %d %s %q is menu entry %d", b.Index, b.Role, b.Name, e.Index)
		}
	}

	// The evidence: the menu's lines on the step's record; the log: both
	// reads as steps, the image among the screenshots, and no secret.
	lines, _ := out.Steps[2].Detail["menu"].([]string)
	if out.Steps[2].Kind != "action_menu" || !slices.Contains(lines, `[`+strconv.Itoa(nc.Index)+`] button "New customer" {role="button" name="New customer"}`) {
		t.Errorf("action_menu evidence: %+v", out.Steps[2])
	}
	log := s.sessionText(t)
	for _, w := range []string{`"kind":"action_menu"`, `"kind":"annotated_screenshot"`, "-annotated-customers.png"} {
		if !strings.Contains(log, w) {
			t.Errorf("session log lacks %s", w)
		}
	}
	if strings.Contains(log, secret) {
		t.Error("the session log carries the secret")
	}
}

// TestPagePrimitive runs open_customer_form: its primitive takes the
// call's page (the page the goto opened), reads and clicks through the
// handle, and each of its actions is a step of the call in the session
// log; the menu inside the dialog it opened then lists the form.
func TestPagePrimitive(t *testing.T) {
	s := newSetup(t)
	out := s.dispatch(t, "open_customer_form", `{}`)
	var res struct {
		Title  string  `json:"title"`
		Fields int     `json:"fields"`
		Form   []entry `json:"form"`
	}
	if err := json.Unmarshal(out.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.Title != "New customer" || res.Fields != 2 {
		t.Errorf("result %s", out.Result)
	}
	names := map[string]bool{}
	for _, e := range res.Form {
		names[e.Role+" "+e.Name] = true
	}
	if !names["button Save"] || !names["button Cancel"] || names["button New customer"] {
		t.Errorf("menu within the dialog: %+v", res.Form)
	}
	want := []struct{ path, kind string }{
		{"steps[0]", "goto"},
		{"steps[1].page[0]", "extract"},
		{"steps[1].page[1]", "click"},
		{"steps[1].page[2]", "extract"},
		{"steps[1].page[3]", "extract"},
		{"steps[1]", "primitive"},
		{"steps[2]", "action_menu"},
	}
	if len(out.Steps) != len(want) {
		t.Fatalf("steps %+v", out.Steps)
	}
	for i, w := range want {
		st := out.Steps[i]
		if st.Path != w.path || st.Kind != w.kind || st.Status != "passed" {
			t.Errorf("step %d: %s %s %s, want %s %s", i, st.Path, st.Kind, st.Status, w.path, w.kind)
		}
	}
	if click := out.Steps[2]; len(click.Checks) != 1 || click.Checks[0].Status != engine.Passed {
		t.Errorf("the click's check: %+v", click.Checks)
	}
	if n := out.Steps[5].Detail["page_steps"]; n != 4 {
		t.Errorf("primitive page_steps %v", n)
	}
	if out.Verdict != sessionlog.VerdictPassed {
		t.Errorf("verdict %s", out.Verdict)
	}
	log := s.sessionText(t)
	for _, w := range []string{`"path":"steps[1].page[1]"`, `"kind":"click"`, `New customer`} {
		if !strings.Contains(log, w) {
			t.Errorf("session log lacks %s", w)
		}
	}
}

// TestPagePrimitiveOutsideACall: the adapter refuses to run without the
// handle Exec.Primitive provides, instead of acting on no page.
func TestPagePrimitiveOutsideACall(t *testing.T) {
	fn := generated.Primitives()["open_customer_form"]
	if _, err := fn(context.Background(), json.RawMessage(`{"button": "x"}`)); err == nil || !strings.Contains(err.Error(), "takes the call's page") {
		t.Errorf("err = %v", err)
	}
}

// TestGeneratedUpToDate: generated/ is what `macrokit generate` makes of
// macros.d/ with primitives/.
func TestGeneratedUpToDate(t *testing.T) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"macrokit", "generate", "--check", "--macros", "macros.d", "--primitives", "primitives", "--out", "generated"}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("generate --check: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
