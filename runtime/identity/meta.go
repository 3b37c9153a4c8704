package identity

import (
	"fmt"
	"os"
	"sort"
	"time"
)

// Meta is what `identity list` and `identity show` print: never a cookie
// or storage value.
type Meta struct {
	Name      string               `json:"name"`
	Path      string               `json:"path"`
	Encrypted bool                 `json:"encrypted"`
	Saved     time.Time            `json:"saved"`
	Rev       int64                `json:"rev"`
	Cookies   int                  `json:"cookies"`
	Domains   []string             `json:"domains"`
	Origins   []string             `json:"origins"`
	Expires   *time.Time           `json:"expires,omitempty"` // the earliest persistent cookie expiry
	Logins    map[string]time.Time `json:"logins,omitempty"`
	// Error is why the state could not be read (list shows the others).
	Error string `json:"error,omitempty"`
}

// Show returns one identity's metadata; CodeNotFound without a state.
func (s *Store) Show(name string) (Meta, error) {
	if err := ValidName(name); err != nil {
		return Meta{}, err
	}
	p := s.path(name)
	if _, err := os.Stat(p); err != nil {
		return Meta{}, &Error{Code: CodeNotFound, Path: p, Msg: fmt.Sprintf("no saved state for identity %s", name)}
	}
	rec, sealed, err := s.read(name)
	if err != nil {
		return Meta{Name: name, Path: p}, err
	}
	return metaOf(rec, p, sealed), nil
}

// List returns the metadata of every identity, sorted by name; one that
// cannot be read carries its Error.
func (s *Store) List() ([]Meta, error) {
	names, err := s.Names()
	if err != nil {
		return nil, err
	}
	out := make([]Meta, 0, len(names))
	for _, n := range names {
		m, err := s.Show(n)
		if err != nil {
			m = Meta{Name: n, Path: s.path(n), Error: err.Error()}
		}
		out = append(out, m)
	}
	return out, nil
}

func metaOf(rec *Record, path string, sealed bool) Meta {
	m := Meta{Name: rec.Name, Path: path, Encrypted: sealed, Saved: rec.Saved, Rev: rec.Rev, Cookies: len(rec.State.Cookies),
		Domains: []string{}, Origins: []string{}}
	domains := map[string]bool{}
	for _, c := range rec.State.Cookies {
		domains[c.Domain] = true
		if !c.Session() {
			t := time.Unix(int64(c.Expires), 0).UTC()
			if m.Expires == nil || t.Before(*m.Expires) {
				m.Expires = &t
			}
		}
	}
	for d := range domains {
		m.Domains = append(m.Domains, d)
	}
	sort.Strings(m.Domains)
	for _, o := range rec.State.Origins {
		m.Origins = append(m.Origins, o.Origin)
	}
	sort.Strings(m.Origins)
	if len(rec.Logins) > 0 {
		m.Logins = map[string]time.Time{}
		for k, l := range rec.Logins {
			m.Logins[k] = l.At
		}
	}
	return m
}
