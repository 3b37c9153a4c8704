package record

import (
	"slices"

	"github.com/macrokit/macrokit-go/engine"
)

// mergeOptionClicks turns "click a combobox, click one of its options"
// into one select of that option (the way a spec writes it). A multiple
// select's picks, one after another (opening it again between them or
// not), become one select of them all: a pick of an option already chosen
// takes it back, and a native select's changes keep the last (it reports
// every chosen option each time). A cascader's levels, clicked one after
// another from its combobox, become one select of that path.
func mergeOptionClicks(acts []*engine.Recorded) []*engine.Recorded {
	var out []*engine.Recorded
	for _, a := range acts {
		if merged, ok := merge(out, a); ok {
			out = merged
			continue
		}
		out = append(out, a)
	}
	return out
}

// merge folds a into the actions before it, when it continues the last.
func merge(out []*engine.Recorded, a *engine.Recorded) ([]*engine.Recorded, bool) {
	if len(out) == 0 {
		return out, false
	}
	prev := out[len(out)-1]
	switch {
	case a.Kind == "select" && a.Multiple:
		// A native multiple select reports every option chosen: the last
		// change holds them all.
		if prev.Kind == "select" && prev.Multiple && sameTarget(prev.Target, a.Target) {
			sel := *a
			sel.Before, sel.Requests = prev.Before, requestsOf(prev, a)
			out[len(out)-1] = &sel
			return out, true
		}
	case a.Kind == "click" && a.Combobox:
		// Opened again for another pick (react-select's multi closes its
		// menu after each): the picks go on in the same select.
		return out, prev.Kind == "select" && prev.Multiple && prev.Combobox && sameTarget(prev.Target, a.Target)
	case a.Kind == "click" && a.Level:
		return mergeLevel(out, prev, a)
	case a.Kind == "click" && a.Role == "option":
		return mergePick(out, prev, a)
	}
	return out, false
}

// mergeLevel adds a cascader's level to the path its combobox click
// started (opened again for another path: the last one is what was
// chosen).
func mergeLevel(out []*engine.Recorded, prev, a *engine.Recorded) ([]*engine.Recorded, bool) {
	switch {
	case prev.Kind == "click" && prev.Combobox && prev.Target != nil:
		sel := *prev
		sel.Kind, sel.Value, sel.Values, sel.Level = "select", a.Name, []string{a.Name}, true
		sel.Options, sel.OptionValues, sel.Multiple = nil, nil, false
		sel.After, sel.Requests = a.After, requestsOf(prev, a)
		if len(out) > 1 && out[len(out)-2].Kind == "select" && out[len(out)-2].Level && sameTarget(out[len(out)-2].Target, prev.Target) {
			sel.Before = out[len(out)-2].Before
			out = out[:len(out)-1]
		}
		out[len(out)-1] = &sel
		return out, true
	case prev.Kind == "select" && prev.Level:
		sel := *prev
		sel.Values = append(slices.Clone(prev.Values), a.Name)
		sel.After, sel.Requests = a.After, requestsOf(prev, a)
		out[len(out)-1] = &sel
		return out, true
	}
	return out, false
}

// mergePick makes an option's click the select of the combobox clicked
// before it, or one more pick of a multiple select.
func mergePick(out []*engine.Recorded, prev, a *engine.Recorded) ([]*engine.Recorded, bool) {
	// Text typed into the combobox to filter its options is not a fill.
	if len(out) > 1 && prev.Kind == "fill" && comboOf(out[len(out)-2]) && sameTarget(prev.Target, out[len(out)-2].Target) {
		out = out[:len(out)-1]
		prev = out[len(out)-1]
	}
	switch {
	case prev.Kind == "click" && prev.Combobox && prev.Target != nil:
		sel := *prev
		sel.Kind, sel.Value, sel.Options, sel.OptionValues, sel.OptionsPartial = "select", a.Name, a.Options, a.OptionValues, a.OptionsPartial
		sel.Multiple, sel.Values = a.Multiple, nil
		if a.Multiple {
			sel.Values = []string{a.Name}
		}
		sel.After, sel.Requests = a.After, requestsOf(prev, a)
		out[len(out)-1] = &sel
		return out, true
	case a.Multiple && prev.Kind == "select" && prev.Multiple && prev.Combobox:
		sel := *prev
		sel.Values = togglePick(prev.Values, a.Name)
		sel.Options, sel.OptionValues = unionOptions(prev, a)
		sel.OptionsPartial = prev.OptionsPartial || a.OptionsPartial
		sel.After, sel.Requests = a.After, requestsOf(prev, a)
		if len(sel.Values) == 0 {
			// Every pick taken back: nothing was chosen.
			return out[:len(out)-1], true
		}
		sel.Value = sel.Values[0]
		out[len(out)-1] = &sel
		return out, true
	}
	return out, false
}

// requestsOf are the requests of two actions merged into one.
func requestsOf(prev, a *engine.Recorded) []engine.Request {
	return append(append([]engine.Request(nil), prev.Requests...), a.Requests...)
}

// comboOf says whether a is a click on a combobox or the select it became.
func comboOf(a *engine.Recorded) bool {
	return a.Combobox && (a.Kind == "click" || a.Kind == "select" && a.Multiple)
}

// unionOptions are the options a multiple select showed at either pick
// (a widget may hide those already chosen), with their values when both
// picks reported them.
func unionOptions(prev, a *engine.Recorded) ([]string, []string) {
	names := slices.Clone(prev.Options)
	withValues := len(prev.OptionValues) == len(prev.Options) && len(a.OptionValues) == len(a.Options)
	var values []string
	if withValues {
		values = slices.Clone(prev.OptionValues)
	}
	for i, n := range a.Options {
		if slices.Contains(names, n) {
			continue
		}
		names = append(names, n)
		if withValues {
			values = append(values, a.OptionValues[i])
		}
	}
	return names, values
}

// togglePick adds name to the options chosen, or takes it back when it
// was chosen already (a multiple select's option toggles).
func togglePick(values []string, name string) []string {
	if i := slices.Index(values, name); i >= 0 {
		return slices.Delete(slices.Clone(values), i, i+1)
	}
	return append(slices.Clone(values), name)
}

// sameTarget says whether two targets are written the same, without a
// scope or an index (a combobox clicked again is the same one).
func sameTarget(a, b *engine.Target) bool {
	if a == nil || b == nil {
		return false
	}
	x, y := *a, *b
	return x.Within == nil && y.Within == nil && x.Nth == nil && y.Nth == nil && x == y
}
