package ghprim

import (
	"context"
	"net/http"
	"time"
)

// Options configure the primitives of a context (see [WithOptions]).
type Options struct {
	// Client downloads logs (fetch_log_text); nil means a client with a 60s
	// timeout.
	Client *http.Client
	// Now is the clock of days_ago; nil means time.Now.
	Now func() time.Time
}

type optionsKey struct{}

// WithOptions returns ctx carrying o, for the primitives called under it:
// they are plain functions registered by generated code, so the clock and
// the HTTP client travel with the call (tests pin both).
func WithOptions(ctx context.Context, o Options) context.Context {
	return context.WithValue(ctx, optionsKey{}, o)
}

func optionsFrom(ctx context.Context) Options {
	o, _ := ctx.Value(optionsKey{}).(Options)
	return o
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) client() *http.Client {
	if o.Client != nil {
		return o.Client
	}
	return &http.Client{Timeout: 60 * time.Second}
}
