package engine

// CONTRACT FILE: the API the engine helper implements (and deletes this
// file). Nothing here may reach main in this form.

import (
	"context"
	"errors"

	"github.com/macrokit/macrokit-go/runtime/identity"
)

var errStorageContract = errors.New("engine: storage contract only")

// Restore puts st into the context before its first page loads: every
// cookie (HttpOnly and Secure ones too) and each origin's localStorage.
func (c *Context) Restore(ctx context.Context, st identity.State) error { return errStorageContract }

// StorageState reads the context's cookies and the localStorage of the
// given origins plus every origin its pages visited (Origins).
func (c *Context) StorageState(ctx context.Context, origins []string) (identity.State, error) {
	return identity.State{}, errStorageContract
}

// Origins returns the origins the context's pages have loaded documents
// from, sorted.
func (c *Context) Origins() []string { return nil }

// Shared reports whether the context is the browser's default context
// (Options.UserContext): the user's own cookies and logins, which Close
// leaves alone.
func (c *Context) Shared() bool { return false }

// Context returns the browser context the page belongs to.
func (p *Page) Context() *Context { return nil }
