package engine

import (
	"context"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestScrollProbe: a click on a row that a list renders only once scrolled
// to heals through the scroll probe, which scrolls the list's own scroller
// (or the page, for a lazy list at its end), and clicks it exactly once.
func TestScrollProbe(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		setup  string // JS run first
		target Target
		log    string
	}{
		{"virtualized container, far down", "", Target{Role: "button", Name: "Open row 1500"}, "open 1500;"},
		{"virtualized container, above the scrolled-to rows", "(document.getElementById('virt').scrollTop = 30000, new Promise((r) => setTimeout(r, 100)))", Target{Role: "button", Name: "Open row 12"}, "open 12;"},
		{"lazy list at the end of the page", "", Target{Role: "button", Name: "Like item 75"}, "item 75;"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "scroll_probe.html")
			if c.setup != "" {
				actJS(t, ctx, p, c.setup)
			}
			tg := c.target
			res, err := p.Do(ctx, Step{Action: vocab.ActClick, Target: &tg, Timeout: 20 * time.Second})
			if err != nil {
				t.Fatalf("%v (attempts %+v)", err, res.Attempts)
			}
			if got := actJS(t, ctx, p, `document.getElementById('log').textContent`); got != c.log {
				t.Fatalf("log %q, want %q", got, c.log)
			}
			probed := false
			for _, a := range res.Attempts {
				probed = probed || a.Strategy == "scroll_probe"
			}
			if !probed {
				t.Fatalf("attempts %+v: the scroll probe did not run", res.Attempts)
			}
		})
	}
	t.Run("missing target restores the scroll positions", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "scroll_probe.html")
		actJS(t, ctx, p, "document.getElementById('virt').scrollTop = 2000")
		start := time.Now()
		found, err := p.scrollProbe(ctx, &Target{Role: "button", Name: "Open row 99999"})
		if err != nil || found {
			t.Fatalf("found %v, err %v", found, err)
		}
		if got := actJS(t, ctx, p, `document.getElementById('virt').scrollTop + ' ' + document.getElementById('plain').scrollTop`); got != "2000 0" {
			t.Fatalf("scroll positions %q, want restored", got)
		}
		t.Logf("a full probe of a 2,000-row list took %s", time.Since(start).Round(time.Millisecond))
	})
	t.Run("budget", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "scroll_probe.html")
		short, cancel := context.WithTimeout(ctx, scrollProbeReserve+300*time.Millisecond)
		defer cancel()
		start := time.Now()
		if found, err := p.scrollProbe(short, &Target{Role: "button", Name: "Open row 99999"}); err != nil || found {
			t.Fatalf("found %v, err %v", found, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("probe took %s with 300ms of budget", d)
		}
	})
}
