package identity

import (
	"sort"
	"time"
)

// Delta is what one call changed in a state: cookies and storage items
// set, and those it removed together with the value it started from, so a
// removal never undoes a newer value another call saved.
type Delta struct {
	SetCookies    []Cookie
	RemoveCookies []Cookie // as restored: removed only while the store still holds that value
	SetItems      map[string][]StorageItem
	RemoveItems   map[string][]StorageItem // per origin, as restored
}

type cookieKey struct{ name, domain, path string }

func keyOf(c Cookie) cookieKey { return cookieKey{c.Name, c.Domain, c.Path} }

// Diff returns the changes from base (the state restored into a context)
// to now (the context's state after the call).
func Diff(base, now State) Delta {
	var d Delta
	was := map[cookieKey]Cookie{}
	for _, c := range base.Cookies {
		was[keyOf(c)] = c
	}
	seen := map[cookieKey]bool{}
	for _, c := range now.Cookies {
		k := keyOf(c)
		seen[k] = true
		if old, ok := was[k]; !ok || !sameCookie(old, c) {
			d.SetCookies = append(d.SetCookies, c)
		}
	}
	for _, c := range base.Cookies {
		if !seen[keyOf(c)] {
			d.RemoveCookies = append(d.RemoveCookies, c)
		}
	}
	baseItems, nowItems := items(base), items(now)
	for origin, m := range nowItems {
		for name, v := range m {
			if old, ok := baseItems[origin][name]; !ok || old != v {
				d.SetItems = addItem(d.SetItems, origin, StorageItem{name, v})
			}
		}
	}
	for origin, m := range baseItems {
		cur, read := nowItems[origin]
		if !read {
			continue // the call did not read this origin: nothing is known removed
		}
		for name, v := range m {
			if _, ok := cur[name]; !ok {
				d.RemoveItems = addItem(d.RemoveItems, origin, StorageItem{name, v})
			}
		}
	}
	return d
}

func sameCookie(a, b Cookie) bool {
	// Chromium reports expiry with sub-second noise; a second is the unit.
	return a.Value == b.Value && a.HTTPOnly == b.HTTPOnly && a.Secure == b.Secure && a.SameSite == b.SameSite &&
		int64(a.Expires) == int64(b.Expires)
}

func items(st State) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, o := range st.Origins {
		m := map[string]string{}
		for _, it := range o.LocalStorage {
			m[it.Name] = it.Value
		}
		out[o.Origin] = m
	}
	return out
}

func addItem(m map[string][]StorageItem, origin string, it StorageItem) map[string][]StorageItem {
	if m == nil {
		m = map[string][]StorageItem{}
	}
	m[origin] = append(m[origin], it)
	return m
}

// Empty reports whether d changes nothing.
func (d Delta) Empty() bool {
	return len(d.SetCookies) == 0 && len(d.RemoveCookies) == 0 && len(d.SetItems) == 0 && len(d.RemoveItems) == 0
}

// Apply returns st with d's changes: cookies set or removed by (name,
// domain, path), localStorage items set or removed per origin; a removal
// applies only while st still holds the value the call started from.
func (d Delta) Apply(st State) State {
	byKey := map[cookieKey]Cookie{}
	for _, c := range st.Cookies {
		byKey[keyOf(c)] = c
	}
	for _, c := range d.RemoveCookies {
		if cur, ok := byKey[keyOf(c)]; ok && cur.Value == c.Value {
			delete(byKey, keyOf(c))
		}
	}
	for _, c := range d.SetCookies {
		byKey[keyOf(c)] = c
	}
	out := State{Cookies: make([]Cookie, 0, len(byKey)), Origins: []Origin{}}
	for _, c := range byKey {
		out.Cookies = append(out.Cookies, c)
	}
	its := items(st)
	for origin, rm := range d.RemoveItems {
		for _, it := range rm {
			if cur, ok := its[origin][it.Name]; ok && cur == it.Value {
				delete(its[origin], it.Name)
			}
		}
	}
	for origin, set := range d.SetItems {
		if its[origin] == nil {
			its[origin] = map[string]string{}
		}
		for _, it := range set {
			its[origin][it.Name] = it.Value
		}
	}
	for origin, m := range its {
		if len(m) == 0 {
			continue
		}
		o := Origin{Origin: origin}
		for name, v := range m {
			o.LocalStorage = append(o.LocalStorage, StorageItem{name, v})
		}
		out.Origins = append(out.Origins, o)
	}
	out.Sort()
	return out
}

// Sort puts a state in its canonical order: cookies by domain, path and
// name; origins by origin; items by name.
func (st *State) Sort() {
	sort.Slice(st.Cookies, func(i, j int) bool {
		a, b := st.Cookies[i], st.Cookies[j]
		if a.Domain != b.Domain {
			return a.Domain < b.Domain
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Name < b.Name
	})
	sort.Slice(st.Origins, func(i, j int) bool { return st.Origins[i].Origin < st.Origins[j].Origin })
	for _, o := range st.Origins {
		sort.Slice(o.LocalStorage, func(i, j int) bool { return o.LocalStorage[i].Name < o.LocalStorage[j].Name })
	}
}

// Secrets returns the values a state holds (cookie and storage values of
// at least MinSecret bytes), for redaction; shorter ones ("1", "true")
// would blank out every log they occur in and carry no session.
func (st State) Secrets() []string {
	var out []string
	for _, c := range st.Cookies {
		if len(c.Value) >= MinSecret {
			out = append(out, c.Value)
		}
	}
	for _, o := range st.Origins {
		for _, it := range o.LocalStorage {
			if len(it.Value) >= MinSecret {
				out = append(out, it.Value)
			}
		}
	}
	return out
}

// MinSecret is the shortest stored value Secrets returns.
const MinSecret = 8

// Live returns st without the cookies that expired before now.
func (st State) Live(now time.Time) State {
	out := State{Origins: st.Origins}
	for _, c := range st.Cookies {
		if !c.Expired(now) {
			out.Cookies = append(out.Cookies, c)
		}
	}
	return out
}
