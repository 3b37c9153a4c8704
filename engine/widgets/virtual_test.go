package widgets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestVirtualListRowAction clicks a row action far down a react-window 2
// list of 5,000 rows: the row is not in the DOM until the list's own
// scroller reaches it, so the not_found healing scroll probe must scroll
// that container (not the window) until the target renders, and the
// archive must reach the server exactly once.
func TestVirtualListRowAction(t *testing.T) {
	t.Parallel()
	cases := []struct {
		interaction string
		row         int
		up          bool // start scrolled past the row: the probe must come back up
	}{
		{"a row action far down (row 4321 of 5,000)", 4321, false},
		{"a row action above the scrolled-to rows", 40, true},
	}
	for _, c := range cases {
		t.Run(c.interaction, func(t *testing.T) {
			t.Parallel()
			track(t, "List (virtualized)", "react-window", c.interaction)
			p, ss := open(t, "virtual")
			if c.up {
				ctx := context.Background()
				list, err := p.Resolve(ctx, engine.Target{Role: "list"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Scroll(ctx, list, 36*3000, engine.ActOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			name := "Archive ticket " + strconv.Itoa(c.row)
			// The default 10 s step: a short wait for the target, then the
			// scroll probe over the list's own scroller, which jumps by the
			// row numbers in the near misses' names (a handful of renders,
			// not one per page).
			res, err := p.Do(context.Background(), engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: name},
				Expect: []engine.Condition{{Kind: vocab.CondRequestSucceeded, URL: "/api/archive", Method: "POST"}}})
			var strategies []string
			for _, a := range res.Attempts {
				strategies = append(strategies, fmt.Sprintf("%s (%s)", a.Strategy, a.Duration.Round(time.Millisecond)))
			}
			t.Logf("%s: %s, attempts %v", name, res.Duration.Round(time.Millisecond), strategies)
			if err != nil {
				t.Fatalf("click %s: %v", name, err)
			}
			archives := ss.Effects("/api/archive")
			if len(archives) != 1 {
				t.Fatalf("%d archives reached the server, want exactly 1", len(archives))
			}
			var body struct {
				ID int `json:"id"`
			}
			if err := json.Unmarshal(archives[0].Body, &body); err != nil || body.ID != c.row {
				t.Fatalf("archived %s (%v), want id %d", archives[0].Body, err, c.row)
			}
		})
	}
}
