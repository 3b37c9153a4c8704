package cli

import (
	"strings"
	"testing"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
)

// TestRecordAntdForm records a customer saved on the real-widget app's antd
// 6 page. antd's Select renders its options as role-less divs in a
// virtual list and marks its search input autocomplete=new-password; the
// form is submitted by Enter in the date field. The recording must hold:
// each pick is one select (Customer's ten options become an enum; Country's
// virtual list shows only some of its options, so its parameter is a plain
// string); Regions' picks (one taken back) one select of a list; the
// Cascader's three levels one select of a path; no select a secret; and
// Enter one press — the click the browser synthesises on the submit button
// for it is not recorded as a second submission. The spec equals the
// golden and, replayed with a country that was never rendered, passes and
// saves exactly once.
func TestRecordAntdForm(t *testing.T) {
	r := recordWidgets(t, "antd", "save_customer")
	// As a person would, wait for a menu to have gone before the next
	// field: while it slides away it covers the fields below it.
	menuGone := func() {
		t.Helper()
		if err := r.user.Page.Context(r.ctx).Wait(rod.Eval(`() => !document.querySelector('.ant-select-dropdown:not(.ant-select-dropdown-hidden)')`)); err != nil {
			t.Fatal(err)
		}
	}
	r.click("#customer", "")
	r.waitFor("  + click", 1)
	r.click(".ant-select-item-option-content", "Globex")
	r.waitFor("  + click", 2)
	menuGone()
	r.click("#country", "")
	r.waitFor("  + click", 3)
	r.click(".ant-select-item-option-content", "Austria")
	r.waitFor("  + click", 4)
	menuGone()
	// Regions holds several: North, West, East, and West again takes it back.
	r.click("#regions", "")
	r.waitFor("  + click", 5)
	for i, region := range []string{"North", "West", "East", "West"} {
		r.click(".ant-select-item-option-content", region)
		r.waitFor("  + click", 6+i)
	}
	if err := r.user.Page.Context(r.ctx).Keyboard.Type(input.Escape); err != nil {
		t.Fatal(err)
	}
	menuGone()
	// Location is a Cascader: a path, one level per menu.
	r.click("#location", "")
	r.waitFor("  + click", 10)
	for i, level := range []string{"Zhejiang", "Hangzhou", "West Lake"} {
		r.click(".ant-cascader-menu-item-content", level)
		r.waitFor("  + click", 11+i)
	}
	menuGone()
	r.click("#start", "")
	r.typeText("2026-12-24")
	if err := r.user.Page.Context(r.ctx).Keyboard.Type(input.Enter); err != nil {
		t.Fatal(err)
	}
	r.waitFor("  + press", 1)
	if _, err := r.user.Page.Context(r.ctx).ElementR("[data-testid=saved-row]", "Globex"); err != nil {
		t.Fatalf("the saved row never showed: %v", err)
	}
	spec := r.finish("save_customer")
	r.lacks(spec,
		"select: {target: {label: Customer}, option: \"{{ customer }}\"}",
		"select: {target: {label: Country}, option: \"{{ country }}\"}",
		"select: {target: {label: Regions}, options: \"{{ regions }}\"}",
		"regions: {type: array, items: {type: string, enum: [North, South, East, West]}, minItems: 1",
		"regions: [North, East]",
		"select: {target: {label: Location}, path: \"{{ location }}\"}",
		"location: [Zhejiang, Hangzhou, West Lake]",
		"request_succeeded: {url: /api/save, method: POST}",
		"list_count_delta: {target: {testid: saved-row}, delta: 1}")
	for _, bad := range []string{"secret", "Save customer", "country: {type: string, enum"} {
		if strings.Contains(string(spec), bad) {
			t.Errorf("the recorded spec holds %q", bad)
		}
	}
	if n := strings.Count(r.stderr.String(), "  + click"); n != 13 {
		t.Errorf("recorded %d clicks, want 13 (one per combobox, one per pick or level; Enter's synthesised click is not one)\n%s", n, r.stderr.String())
	}
	r.replay("save_customer", map[string]any{"customer": "Initech", "country": "Sweden", "regions": []any{"South", "East"},
		"location": []any{"Jiangsu", "Nanjing", "Zhong Hua Men"}, "start_date": "2026-12-25"},
		`"customer":"Initech"`, `"country":"Sweden"`, `"regions":["South","East"]`,
		`"location":["jiangsu","nanjing","zhonghuamen"]`, `"start":"2026-12-25"`)
}
