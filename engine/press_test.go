package engine

import (
	"strings"
	"testing"
)

func TestActPress(t *testing.T) {
	t.Parallel()
	t.Run("enter submits", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "act_nav.html")
		res := actMust(t)(p.Press(ctx, actEl(t, ctx, p, "#name"), "Enter", ActOptions{}))
		if !res.Navigated || !strings.Contains(res.URL, "/api/act/submit") || res.Focused == nil || res.Focused.Tag != "input" {
			t.Fatalf("evidence %+v", res)
		}
		if got := actJS(t, ctx, p, `document.getElementById('thanks').textContent`); got != "Thanks Ada" {
			t.Fatalf("page %q", got)
		}
	})
	t.Run("keys", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "act_form.html")
		name := actEl(t, ctx, p, "#name")
		actMust(t)(p.Fill(ctx, name, "to be cleared", ActOptions{}))
		actMust(t)(p.Press(ctx, name, "Control+A", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "Backspace", ActOptions{}))
		if got := actJS(t, ctx, p, `document.getElementById('name').value`); got != "" {
			t.Fatalf("Control+A, Backspace left %q", got)
		}
		actMust(t)(p.Press(ctx, nil, "Shift+A", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "b", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "!", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "Escape", ActOptions{}))
		actMust(t)(p.Press(ctx, nil, "ArrowDown", ActOptions{}))
		if got := actJS(t, ctx, p, `document.getElementById('name').value + '|' + document.getElementById('log').textContent`); got != "Ab!|escape;down;" {
			t.Fatalf("page %q", got)
		}
		res := actMust(t)(p.Press(ctx, nil, "Tab", ActOptions{}))
		if res.Focused == nil || res.Focused.Tag != "input" {
			t.Fatalf("focused before tab %+v", res.Focused)
		}
		if got := actJS(t, ctx, p, `document.activeElement.id`); got != "email" {
			t.Fatalf("Tab moved focus to %q", got)
		}
		actMust(t)(p.Press(ctx, nil, "Shift+Tab", ActOptions{}))
		if got := actJS(t, ctx, p, `document.activeElement.id`); got != "name" {
			t.Fatalf("Shift+Tab moved focus to %q", got)
		}
	})
	t.Run("bad spec", func(t *testing.T) {
		t.Parallel()
		for _, spec := range []string{"", "Foo+A", "Control+", "NoSuchKey"} {
			if _, err := parseChord(spec); !IsCode(err, CodeInvalid) {
				t.Errorf("parseChord(%q) = %v", spec, err)
			}
		}
	})
}
