package engine

import (
	"context"
	"net/http"
	"testing"
	"time"
)

const submitsPage = `<!doctype html><html><body>
<form name="customer" id="cust" action="/save" method="post">
  <label>Name <input name="name"></label>
  <label>Email <input type="email" name="email"></label>
  <label>Notes <textarea name="notes"></textarea></label>
  <label><input type="checkbox" name="vip"> VIP</label>
  <button type="button">Preview</button>
  <button>Save</button>
  <button type="submit" disabled>Disabled save</button>
  <input type="submit" value="Send now">
  <button><span>Inner</span></button>
  <button formmethod="dialog">Close dialog</button>
</form>
<form id="search" action="/search"><label>Search <input type="search" name="q"></label></form>
<form id="js-form" onsubmit="event.preventDefault()"><label>Title <input name="title"></label><button>Create</button></form>
<form id="two"><label>A <input name="a"></label><label>B <input name="b"></label></form>
<button form="cust" type="submit">Outside submit</button>
<button>Loose button</button>
<a href="/x">Delete link</a>
</body></html>`

func init() {
	route("/submits", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(submitsPage))
	})
}

// TestSubmitsForm: which clicks and Enters submit a form, by the HTML
// rules, on a real page.
func TestSubmitsForm(t *testing.T) {
	p := newTestPage(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Goto(ctx, srv.URL+"/submits"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		t    Target
		key  string
		form string // "" : does not submit
		meth string
		srch bool
	}{
		{"submit button", Target{Role: "button", Name: "Save"}, "", "customer", "POST", false},
		{"input submit", Target{Role: "button", Name: "Send now"}, "", "customer", "POST", false},
		{"button type=button", Target{Role: "button", Name: "Preview"}, "", "", "", false},
		{"disabled submit", Target{Role: "button", Name: "Disabled save"}, "", "", "", false},
		{"inside a submit button", Target{Text: "Inner"}, "", "customer", "POST", false},
		{"form attribute", Target{Role: "button", Name: "Outside submit"}, "", "customer", "POST", false},
		{"formmethod wins", Target{Role: "button", Name: "Close dialog"}, "", "customer", "DIALOG", false},
		{"script-handled method-less form", Target{Role: "button", Name: "Create"}, "", "js-form", "GET", false},
		{"button outside any form", Target{Role: "button", Name: "Loose button"}, "", "", "", false},
		{"link", Target{Role: "link", Name: "Delete link"}, "", "", "", false},
		{"click in a text field", Target{Label: "Name"}, "", "", "", false},
		{"Enter in a text field, form has a submit button", Target{Label: "Email"}, "Enter", "customer", "POST", false},
		{"Enter in a textarea", Target{Label: "Notes"}, "Enter", "", "", false},
		{"Enter on a checkbox", Target{Label: "VIP"}, "Enter", "", "", false},
		{"Enter on a submit button", Target{Role: "button", Name: "Save"}, "Enter", "customer", "POST", false},
		{"Tab on a submit button", Target{Role: "button", Name: "Save"}, "Tab", "", "", false},
		{"Enter in a lone search field", Target{Label: "Search"}, "Enter", "search", "GET", true},
		{"Enter in a form of two fields without a button", Target{Label: "A"}, "Enter", "", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			el, err := p.Resolve(ctx, tc.t)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := el.SubmitsForm(ctx, tc.key)
			if err != nil {
				t.Fatal(err)
			}
			var got FormSubmit
			if fs != nil {
				got = *fs
			}
			if (fs != nil) != (tc.form != "") || got.Form != tc.form || got.Method != tc.meth || got.Search != tc.srch {
				t.Errorf("SubmitsForm = %+v; want form %q, method %q", fs, tc.form, tc.meth)
			}
		})
	}
}
