package gate

import (
	"strings"
	"testing"
)

// TestSuggestedChecksCanFail is the case: over three explore
// sessions the "click New customer" step showed "Name" (the dialog's
// label), which the table header already showed before the click; the gate
// suggested text_present: Name, a check that cannot fail. Suggested checks
// must be false before the step and true after it, as the log shows.
func TestSuggestedChecksCanFail(t *testing.T) {
	a, b := addCustomerLogs()
	c := newLog("s-c")
	c.addCustomer(demo, "add customer Edsger Dijkstra, ewd@utexas.example, pro", "Edsger Dijkstra", "ewd@utexas.example", "pro")
	r := scanString(t, a+b+c.String(), Options{Env: demoEnv})
	if len(r.Groups) != 1 || r.Groups[0].Sessions != 3 {
		t.Fatalf("groups: %+v", r.Groups)
	}
	y := r.Groups[0].YAML
	for _, bad := range []string{"{text_present: Name}", "{text_present: Email}", "{text_present: New customer}"} {
		if strings.Contains(y, bad) {
			t.Errorf("suggested %s, which held before the click:\n%s", bad, y)
		}
	}
	// What did appear is still suggested: the dialog's help text, the toast
	// and the new row's email.
	for _, good := range []string{"{text_present: They can place orders as soon as they are saved.}", "{text_present: Customer saved}", `{text_present: "{{ email }}"}`,
		`{value_equals: {target: {label: Name}, value: "{{ name }}"}}`} {
		if !strings.Contains(y, good) {
			t.Errorf("lacks %s:\n%s", good, y)
		}
	}
}

// TestUnprovenChecksLeftOut: a log without the before observations
// (absent_before, value_before: an older explore) proves no text or value
// changed, so no such check is suggested; a URL pattern the page matched
// before the step (url_matches is unanchored) is not suggested either.
func TestUnprovenChecksLeftOut(t *testing.T) {
	l := newLog("s1")
	for _, name := range []string{"Ada Lovelace", "Grace Hopper"} {
		l.user("rename the first customer to " + name)
		list, edit := demo+"/customers", demo+"/customers/edit"
		l.raw(toolGoto, map[string]any{"url": edit}, nil, list, edit)
		l.raw(toolFill, map[string]any{"target": target("label", "Name"), "value": name}, map[string]any{"value": name}, edit, edit)
		l.raw(toolClick, map[string]any{"target": target("role", "button", "name", "Save")}, map[string]any{
			"appeared": []string{"Customer saved", name}}, edit, list)
	}
	r := scanString(t, l.String(), Options{Env: demoEnv})
	if len(r.Groups) != 1 {
		t.Fatalf("groups: %+v", r.Groups)
	}
	y := r.Groups[0].YAML
	for _, bad := range []string{"text_present", "value_equals", "url_matches: /customers}"} {
		if strings.Contains(y, bad) {
			t.Errorf("suggested %s without proof that it changed:\n%s", bad, y)
		}
	}
	if !strings.Contains(y, "url_matches: /customers/edit") {
		t.Errorf("the goto's URL, not matched before, is still a check:\n%s", y)
	}
}

// TestUnprovenEffectsMarked: in an act suggestion, a step whose effect no
// observed change proves is written with unverified: (so check accepts the
// spec and its runs report unverified) and a REVIEW note; a step checked
// by its requests is not.
func TestUnprovenEffectsMarked(t *testing.T) {
	l := newLog("s1")
	for _, name := range []string{"Ada Lovelace", "Grace Hopper"} {
		l.user("add customer " + name)
		list := demo + "/customers"
		l.raw(toolGoto, map[string]any{"url": list}, nil, "about:blank", list)
		l.raw(toolClick, map[string]any{"target": target("role", "button", "name", "New customer")}, map[string]any{"appeared": []string{"Name"}}, list, list)
		l.raw(toolFill, map[string]any{"target": target("label", "Name"), "value": name}, map[string]any{"value": name}, list, list)
		l.raw(toolClick, map[string]any{"target": target("role", "button", "name", "Save")}, map[string]any{
			"requests": []map[string]any{{"method": "POST", "url": demo + "/api/customers", "status": 201}}}, list, list)
	}
	r := scanString(t, l.String(), Options{Env: demoEnv})
	if len(r.Groups) != 1 {
		t.Fatalf("groups: %+v", r.Groups)
	}
	y := r.Groups[0].YAML
	if strings.Count(y, "unverified: "+uncheckedReason) != 1 || !strings.Contains(y, "click: {role: button, name: New customer}\n    unverified:") ||
		!strings.Contains(y, "# REVIEW: 1 step(s) changed something no observed change proves") {
		t.Errorf("the New customer click is not marked unverified (and only it):\n%s", y)
	}
}
