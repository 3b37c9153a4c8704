package engine

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestActSelectNative(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_form.html")
	res := actMust(t)(p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"Germany"}, ActOptions{}))
	if !slices.Equal(res.SelectedBefore, []string{"Choose…"}) || !slices.Equal(res.SelectedAfter, []string{"Germany"}) || res.Channel != ChannelDOM {
		t.Fatalf("evidence %+v", res)
	}
	// By value too.
	actMust(t)(p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"fr"}, ActOptions{}))
	if got := actJS(t, ctx, p, `document.getElementById('country').value + ' ' + document.getElementById('log').textContent`); got != "fr country=de;country=fr;" {
		t.Fatalf("page %q", got)
	}
	res = actMust(t)(p.Select(ctx, actEl(t, ctx, p, "#toppings"), []string{"Cheese", "Olives"}, ActOptions{}))
	if !slices.Equal(res.SelectedBefore, []string{"Ham"}) || !slices.Equal(res.SelectedAfter, []string{"Cheese", "Olives"}) {
		t.Fatalf("multi evidence %+v", res)
	}
	res, err := p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"Spain"}, ActOptions{})
	e := actWantCode(t, err, CodeNotFound)
	if len(e.Candidates) != 4 || e.Candidates[1].Name != "France" {
		t.Fatalf("candidates %+v", e.Candidates)
	}
	_, err = p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"Japan"}, ActOptions{})
	actWantCode(t, err, CodeNotInteractable)
	_, err = p.Select(ctx, actEl(t, ctx, p, "#country"), []string{"France", "Germany"}, ActOptions{})
	actWantCode(t, err, CodeInvalid)
}

func TestActSelectARIA(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, css string
		options   []string
		check     string // JS that must return "ok"
		after     []string
	}{
		{"combobox via aria-controls", "#fruit", []string{"Fig"},
			`document.getElementById('fruit').textContent === 'Fig' && document.getElementById('f-fig').getAttribute('aria-selected') === 'true' ? 'ok' : 'no'`,
			[]string{"Fig"}},
		{"portal listbox rendered late", "#city", []string{"Lisbon"},
			`document.getElementById('city').textContent === 'Lisbon' ? 'ok' : 'no'`, []string{"Lisbon"}},
		{"editable combobox", "#lang", []string{"Rust"},
			`document.getElementById('lang').value === 'Rust' ? 'ok' : 'no'`, []string{"Rust"}},
		{"multiselect listbox", "#colors", []string{"Red", "Blue"},
			`Array.from(document.querySelectorAll('#colors [aria-selected=true]')).map(o => o.textContent).join(',') === 'Red,Blue' ? 'ok' : 'no'`,
			[]string{"Red", "Blue"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_aria.html")
			res := actMust(t)(p.Select(ctx, actEl(t, ctx, p, tc.css), tc.options, ActOptions{}))
			if got := actJS(t, ctx, p, tc.check); got != "ok" {
				t.Fatalf("page state wrong (%+v)", res)
			}
			if !slices.Equal(res.SelectedAfter, tc.after) {
				t.Fatalf("selected after %q, want %q (notes %v)", res.SelectedAfter, tc.after, res.Notes)
			}
		})
	}
	t.Run("missing option", func(t *testing.T) {
		t.Parallel()
		p, ctx := actPage(t, "act_aria.html")
		ctx2, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := p.Select(ctx2, actEl(t, ctx, p, "#fruit"), []string{"Mango"}, ActOptions{})
		e := actWantCode(t, err, CodeNotFound)
		if len(e.Candidates) != 6 || e.Candidates[0].Name != "Apple" {
			t.Fatalf("candidates %+v", e.Candidates)
		}
	})
}

// TestActSelectPopup: widgets whose options carry no ARIA role, whose
// labelled input is hidden, or which show the value beside the input;
// and the read-back verdicts: unsure (nothing readable) is no error,
// wrong is value_not_applied.
func TestActSelectPopup(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, label string
		option      string
		log         string
		after       []string
		code        Code // "" = success
		unsure      bool
	}{
		{"plain popup, value beside the input", "Owner", "Carol", "owner=Carol;", []string{"Carol"}, "", false},
		{"hidden input in a visible wrapper", "Department", "Legal", "dept=Legal;", []string{"Legal"}, "", false},
		{"nothing readable: unsure", "Silent", "Bob", "silent=Bob;", nil, "", true},
		{"another value shown: not applied", "Liar", "Alice", "liar=Alice;", []string{"Bob"}, CodeValueNotApplied, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_select_popup.html")
			el, err := p.Resolve(ctx, Target{Label: tc.label})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Select(ctx, el, []string{tc.option}, ActOptions{})
			if tc.code == "" && err != nil {
				t.Fatalf("select: %v (notes %v)", err, res.Notes)
			}
			if tc.code != "" {
				actWantCode(t, err, tc.code)
			}
			if got := actJS(t, ctx, p, `document.getElementById('log').textContent`); got != tc.log {
				t.Fatalf("page log %q, want %q (one pick)", got, tc.log)
			}
			if !slices.Equal(res.SelectedAfter, tc.after) || (res.Unsure != "") != tc.unsure {
				t.Fatalf("after %q unsure %q, want %q unsure=%v (notes %v)", res.SelectedAfter, res.Unsure, tc.after, tc.unsure, res.Notes)
			}
		})
	}
}
