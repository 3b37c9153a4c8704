package widgets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/engine/widgets"
	"github.com/macrokit/macrokit-go/internal/browsertest"
)

// srv serves the app built once for the whole test binary; buildErr says
// why it could not be built (every test then fails with it).
var (
	srv      *widgets.Server
	buildErr error
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	defer browsertest.Close()
	if !isShort() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		dist, err := widgets.Build(ctx, "app")
		cancel()
		if err != nil {
			buildErr = err
		} else {
			srv = widgets.NewServer(dist)
			defer srv.Close()
		}
	}
	code := m.Run()
	if err := writeReport(); err != nil {
		fmt.Fprintln(os.Stderr, "widgets report:", err)
		code = 1
	}
	return code
}

func isShort() bool {
	for _, a := range os.Args[1:] {
		if a == "-test.short" || a == "-test.short=true" {
			return true
		}
	}
	return false
}

// open starts a session and opens page ("antd", "mui", ...) in a browser
// context of the test's own.
func open(t *testing.T, page string, query ...string) (*engine.Page, *widgets.Session) {
	t.Helper()
	b := browsertest.Launch(t)
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	ctx := context.Background()
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ss := srv.Session()
	if err := p.Goto(ctx, ss.URL(page, query...)); err != nil {
		t.Fatal(err)
	}
	return p, ss
}

// do runs one step and fails the test with the engine's error.
func do(t *testing.T, p *engine.Page, step engine.Step) *engine.StepResult {
	t.Helper()
	res, err := p.Do(context.Background(), step)
	if err != nil {
		t.Fatalf("%s %s: %v", step.Action, targetString(step.Target), err)
	}
	return res
}

func targetString(tg *engine.Target) string {
	if tg == nil {
		return ""
	}
	return tg.String()
}

// outcome is one row of the closing report: which widget, which
// interaction, and how it went.
type outcome struct {
	Widget      string        `json:"widget"`
	Library     string        `json:"library"`
	Version     string        `json:"version"`
	Interaction string        `json:"interaction"`
	Result      string        `json:"result"`
	Time        time.Duration `json:"time"`
}

var (
	outcomesMu sync.Mutex
	outcomes   []outcome
)

// track records the test as one row of the report (written to
// $MACROKIT_WIDGETS_REPORT, when set, as JSON): library is the npm package
// whose version the row shows.
func track(t *testing.T, widget, library, interaction string) {
	start := time.Now()
	t.Cleanup(func() {
		r := "pass"
		if t.Failed() {
			r = "fail"
		} else if t.Skipped() {
			r = "skip"
		}
		outcomesMu.Lock()
		defer outcomesMu.Unlock()
		outcomes = append(outcomes, outcome{Widget: widget, Library: library, Version: version(library),
			Interaction: interaction, Result: r, Time: time.Since(start).Round(time.Millisecond)})
	})
}

func version(lib string) string {
	b, err := os.ReadFile("app/package.json")
	if err != nil {
		return ""
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if json.Unmarshal(b, &pj) != nil {
		return ""
	}
	return pj.Dependencies[lib]
}

func writeReport() error {
	path := os.Getenv("MACROKIT_WIDGETS_REPORT")
	if path == "" {
		return nil
	}
	outcomesMu.Lock()
	defer outcomesMu.Unlock()
	sort.Slice(outcomes, func(i, j int) bool {
		a, b := outcomes[i], outcomes[j]
		return strings.Join([]string{a.Library, a.Widget, a.Interaction}, "\x00") < strings.Join([]string{b.Library, b.Widget, b.Interaction}, "\x00")
	})
	b, err := json.MarshalIndent(outcomes, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
