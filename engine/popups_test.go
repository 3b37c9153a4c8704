package engine

import (
	"strings"
	"testing"
)

func TestActClickPopup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ css, from string }{{"#newtab", "link"}, {"#winopen", "open"}} {
		t.Run(tc.from, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_nav.html")
			res := actMust(t)(p.Click(ctx, actEl(t, ctx, p, tc.css), ActOptions{}))
			if res.Popup == nil {
				t.Fatalf("no popup: %+v", res)
			}
			if !strings.Contains(res.PopupURL, "from="+tc.from) {
				t.Fatalf("popup url %q", res.PopupURL)
			}
			if res.Navigated {
				t.Fatalf("opener navigated: %+v", res)
			}
			// The popup is a usable page: loaded, with its agent.
			if got := actJS(t, ctx, res.Popup, `document.getElementById('from').textContent`); got != tc.from {
				t.Fatalf("popup content %q", got)
			}
			u, _ := res.Popup.URL(ctx)
			if !strings.Contains(u, "act_popup.html") {
				t.Fatalf("popup URL() = %q", u)
			}
			b := actEl(t, ctx, res.Popup, "h1")
			if b.Ref == 0 {
				t.Fatal("no agent in popup")
			}
		})
	}
}
