package engine

import (
	"testing"
	"time"
)

// TestReactedIsAVisibleEffect: between two reaction marks the page changes
// in one way; reacted must name an effect exactly when a user could see
// it. Hidden nodes, style and class churn and screen-reader-only text are
// not effects; visible text, elements, control values and ARIA state are.
func TestReactedIsAVisibleEffect(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, js string
		effect   bool
	}{
		{"hidden validation message cleared", `const e = document.getElementById('name-error'); e.textContent = ''; e.className = 'field-error cleared'`, false},
		{"hidden subtree rewritten", `document.getElementById('hidden-text').textContent = 'new'; document.getElementById('hidden-box').setAttribute('data-x', '1')`, false},
		{"class churn on a visible button", `document.getElementById('save').classList.add('focused'); document.getElementById('save').style.color = 'red'`, false},
		{"screen-reader-only live text", `document.getElementById('live').textContent = 'option Globex, selected.'`, false},
		{"live text while its container's class changes", `document.getElementById('live').textContent = 'Globex picked'; document.body.classList.add('menu-closed')`, false},
		{"text in a transparent box", `document.getElementById('ghost').textContent = 'Still not seen'`, false},
		{"visible text added", `const p = document.createElement('p'); p.textContent = 'Contact saved'; document.body.appendChild(p)`, true},
		{"visible text changed", `document.getElementById('notice').textContent = 'Published'`, true},
		{"upper-cased text changed", `document.getElementById('caps').textContent = 'Shipped'`, true},
		{"one word of visible text changed", `document.getElementById('notice').textContent = 'Draft 2'`, true},
		{"visible text removed", `document.getElementById('notice').remove()`, true},
		{"panel shown by a class", `document.getElementById('panel').classList.add('open')`, true},
		{"validation message shown", `document.getElementById('name-error').classList.add('shown')`, true},
		{"element hidden by a class", `document.getElementById('shown').className = 'panel'`, true},
		{"value set by script", `document.getElementById('name').value = 'Bob'`, true},
		{"checkbox set by script", `document.getElementById('agree').checked = true`, true},
		{"aria-expanded on a visible button", `document.getElementById('menu').setAttribute('aria-expanded', 'true')`, true},
		{"image added", `const i = document.createElement('img'); i.width = 20; i.height = 20; i.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw='; document.body.appendChild(i)`, true},
		{"shadow text changed", `document.getElementById('host').shadowRoot.getElementById('in-shadow').textContent = 'Changed'`, true},
	}
	p := newTestPage(t)
	ctx := testCtx(t, 60*time.Second)
	for _, tc := range cases {
		if err := p.Goto(ctx, fixtureURL("run_reaction.html")); err != nil {
			t.Fatal(err)
		}
		before, err := p.reactionMark(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mark := p.RequestMark()
		if err := p.evalJSON(ctx, nil, `() => { `+tc.js+`; return null }`); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		how := p.reacted(ctx, before, mark, nil)
		if (how != "") != tc.effect {
			t.Errorf("%s: reacted = %q, want an effect: %v", tc.name, how, tc.effect)
		}
	}
}
