package cli

import (
	"strings"
	"testing"
)

// TestRecordElementPlusDepartment records a department saved on the
// real-widget app's Element Plus page. el-cascader opens from a read-only
// input (no role, no ARIA popup): the click on it must be recorded — the
// recorder used to take it for a click that only focuses a field, and the
// spec clicked "EMEA" with no menu open — and its three levels become one
// select of a path. The spec equals the golden and, replayed with another
// name, department and path, passes and saves exactly once more.
func TestRecordElementPlusDepartment(t *testing.T) {
	r := recordWidgets(t, "elementplus", "save_department")
	r.click(".el-input input", "")
	r.typeText("Legal ops")
	r.click(".el-select", "Select")
	r.waitFor("  + fill", 1) // leaving Name
	r.waitFor("  + click", 1)
	r.click(".el-select-dropdown__item", "Legal")
	r.waitFor("  + click", 2)
	r.click(".el-cascader input", "")
	r.waitFor("  + click", 3)
	for i, level := range []string{"EMEA", "Germany", "Berlin"} {
		r.click(".el-cascader-node__label", level)
		r.waitFor("  + click", 4+i)
	}
	r.click("button", "Save department")
	r.waitFor("  + click", 7)
	spec := r.finish("save_department")
	r.lacks(spec,
		"select: {target: {label: Region}, path: \"{{ region }}\"}",
		"region: [EMEA, Germany, Berlin]",
		"request_succeeded: {url: /api/save, method: POST}",
		"list_count_delta: {target: {testid: department-row}, delta: 1}")
	if strings.Contains(string(spec), "menuitem") {
		t.Errorf("the recorded spec clicks a menu entry instead of selecting a path:\n%s", spec)
	}
	r.replay("save_department", map[string]any{"name": "Tokyo sales", "new_department": "Sales", "region": []any{"APAC", "Japan", "Tokyo"}},
		`"name":"Tokyo sales"`, `"department":"Sales"`, `"region":["apac","jp","tyo"]`)
}
