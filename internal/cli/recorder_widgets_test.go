package cli

import "testing"

// TestRecordReactSelect records an order on the real-widget app's
// react-select page (engine/widgets, built once per machine and cached):
// clicking the Customer control and then an option of its menu becomes one
// select of a parameter typed as the enum of the options shown; two picks
// in the multi Products, its menu opened for each, one select of a list;
// and Place order gets its POST and the grown list as checks. The spec
// equals the golden and, replayed with another customer and other
// products, passes and saves one order of them.
func TestRecordReactSelect(t *testing.T) {
	r := recordWidgets(t, "reactselect", "place_order")
	r.click("#customer-input", "")
	r.waitFor("  + click", 1)
	r.click("[role=option]", "Globex")
	r.waitFor("  + click", 2)
	// Products is multi: its menu closes after each pick, so it is opened
	// again for the second.
	for i, product := range []string{"Anvil", "Giant magnet"} {
		r.click("#items-input", "")
		r.waitFor("  + click", 3+2*i)
		r.click("[role=option]", product)
		r.waitFor("  + click", 4+2*i)
	}
	r.click("button", "Place order")
	r.waitFor("  + click", 7)
	spec := r.finish("place_order")
	r.lacks(spec, "select: {target: {label: Customer}, option: \"{{ customer }}\"}", "request_succeeded: {url: /api/save, method: POST}",
		"select: {target: {label: Products}, options: \"{{ products }}\"}", "products: [Anvil, Giant magnet]",
		"list_count_delta: {target: {testid: order-row}, delta: 1}")
	r.replay("place_order", map[string]any{"customer": "Initech", "products": []any{"Rocket skates", "Tornado seeds"}},
		`"customer":"Initech"`, `"items":["Rocket skates","Tornado seeds"]`)
}
