package identity

import "time"

// State is a browser state: the cookies of a context and the localStorage
// of the origins it used. The JSON shape is Playwright's storage state, so
// a state exported from one tool can be read by the other.
type State struct {
	Cookies []Cookie `json:"cookies"`
	Origins []Origin `json:"origins"`
}

// Cookie is one browser cookie. Expires is in seconds since the epoch; -1
// (or 0) is a session cookie, which a browser drops when it closes but an
// identity keeps, as Playwright's storage state does.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	// SameSite is "Strict", "Lax", "None" or "" (the browser's default).
	SameSite string `json:"sameSite,omitempty"`
}

// Origin is the localStorage of one origin (scheme://host[:port]).
type Origin struct {
	Origin       string        `json:"origin"`
	LocalStorage []StorageItem `json:"localStorage"`
}

// StorageItem is one localStorage entry.
type StorageItem struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Session reports whether c is a session cookie (no expiry).
func (c Cookie) Session() bool { return c.Expires <= 0 }

// Expired reports whether c is a persistent cookie whose expiry has passed.
func (c Cookie) Expired(now time.Time) bool {
	return !c.Session() && c.Expires <= float64(now.UnixNano())/1e9
}
