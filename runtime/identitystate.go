package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/identity"
)

// load returns the identity's record: the store's, or the one kept in
// memory without a store.
func (id *Identity) load() (*identity.Record, error) {
	if id.Store != nil {
		return id.Store.Load(id.Name)
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.mem == nil {
		return &identity.Record{Name: id.Name}, nil
	}
	return cloneRecord(id.mem), nil
}

// update changes the identity's record under its lock (the store's flock,
// or the in-memory mutex) and returns it as stored.
func (id *Identity) update(ctx context.Context, fn func(*identity.Record) error) (*identity.Record, error) {
	if id.Store != nil {
		return id.Store.Update(ctx, id.Name, fn)
	}
	id.mu.Lock()
	defer id.mu.Unlock()
	r := &identity.Record{Name: id.Name}
	if id.mem != nil {
		r = cloneRecord(id.mem)
	}
	if err := fn(r); err != nil {
		return nil, err
	}
	r.Rev++
	r.Saved = time.Now().UTC()
	id.mem = r
	return cloneRecord(r), nil
}

func cloneRecord(r *identity.Record) *identity.Record {
	b, _ := json.Marshal(r)
	var c identity.Record
	_ = json.Unmarshal(b, &c)
	return &c
}

// identityFailed is the error of a state that could not be read, restored
// or saved; the store's messages name paths and codes, never values.
func identityFailed(id *Identity, what string, err error) *CallError {
	return &CallError{Code: CodeIdentity, Message: fmt.Sprintf("identity %s: %s: %v", id.Name, what, err), Err: err}
}

// restoreIdentity puts the identity's live state into a new page's
// context before its first document loads. The user's own browser
// (a shared context) keeps its own state: nothing is restored.
func (x *Exec) restoreIdentity(ctx context.Context, p *engine.Page) *CallError {
	root := x.root()
	id := root.ident
	if id == nil || p.Context() == nil || p.Context().Shared() {
		return nil
	}
	rec, err := id.load()
	if err != nil {
		return identityFailed(id, "read the saved state", err)
	}
	st := rec.State.Live(time.Now())
	for _, s := range st.Secrets() {
		p.AddSecret(s)
		if x.d.Log != nil {
			x.d.Log.AddSecret(s)
		}
	}
	if len(st.Cookies) > 0 || len(st.Origins) > 0 {
		if err := p.Context().Restore(ctx, st); err != nil {
			return identityFailed(id, "restore the saved state", err)
		}
	}
	root.restored, root.logins, root.restoredOK = st, rec.Logins, true
	return nil
}

// saveIdentity merges what the call changed in its context (cookies set
// or cleared, localStorage written) into the identity's stored state. A
// call that ended signed out is not saved: its state is the stale one a
// fresh login replaces.
func (x *Exec) saveIdentity(ctx context.Context) *CallError {
	root := x.root()
	root.mu.Lock()
	id, p, base, out, ok := root.ident, root.page, root.restored, root.signedOut, root.restoredOK
	root.mu.Unlock()
	if id == nil || p == nil || out != nil || !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	now, err := p.Context().StorageState(ctx, stateOrigins(base))
	if err != nil {
		return identityFailed(id, "read the browser state", err)
	}
	for _, s := range now.Secrets() {
		if x.d.Log != nil {
			x.d.Log.AddSecret(s) // a new cookie is a secret before anything logs it
		}
	}
	delta := identity.Diff(base, now)
	if delta.Empty() {
		return nil
	}
	if _, err := id.update(ctx, func(r *identity.Record) error {
		r.State = delta.Apply(r.State)
		return nil
	}); err != nil {
		return identityFailed(id, "save the browser state", err)
	}
	return nil
}

// saveTimeout bounds reading and saving a call's browser state, which
// runs even when the call's own context ended.
const saveTimeout = 10 * time.Second

// stateOrigins are the origins a state holds localStorage for.
func stateOrigins(st identity.State) []string {
	out := make([]string, 0, len(st.Origins))
	for _, o := range st.Origins {
		out = append(out, o.Origin)
	}
	sort.Strings(out)
	return out
}

// hasSession reports whether the record holds a session the provider
// made: a login on record and at least one live cookie. A session the
// site ended is found out on the page (signed_out), not here.
func hasSession(rec *identity.Record, provider string, now time.Time) bool {
	if _, ok := rec.Logins[provider]; !ok {
		return false
	}
	return len(rec.State.Live(now).Cookies) > 0
}
