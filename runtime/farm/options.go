package farm

import (
	"time"

	"github.com/macrokit/macrokit-go/engine"
)

// Defaults of the options.
const (
	DefaultBackoffMin  = time.Second
	DefaultBackoffMax  = time.Minute
	DefaultPingEvery   = 5 * time.Second
	DefaultPingTimeout = 5 * time.Second
	DefaultOpenTimeout = 10 * time.Second
)

type config struct {
	browser                engine.Options
	backoffMin, backoffMax time.Duration
	pingEvery, pingTimeout time.Duration
	openTimeout            time.Duration
}

// Option configures New.
type Option func(*config)

// WithBrowserOptions sets the engine options of every connection: the
// tracer and the viewport. ControlURL and UserContext are refused (the
// endpoints are the URLs, and every call gets its own context); the
// launch options (Bin, Headed, NoSandbox) do not apply.
func WithBrowserOptions(o engine.Options) Option {
	return func(c *config) { c.browser = o }
}

// WithBackoff sets how long a down endpoint waits before it is probed
// again: min after the first failure, doubling per failure up to max.
func WithBackoff(min, max time.Duration) Option {
	return func(c *config) { c.backoffMin, c.backoffMax = min, max }
}

// WithHealthCheck sets how often a connected endpoint is pinged and how
// long it has to answer. The ping catches an endpoint that hangs or is cut
// off without closing the connection; a closed connection is noticed at
// once.
func WithHealthCheck(every, timeout time.Duration) Option {
	return func(c *config) { c.pingEvery, c.pingTimeout = every, timeout }
}

// WithOpenTimeout bounds connecting to an endpoint and opening a context
// and page on it; an endpoint that takes longer is marked down.
func WithOpenTimeout(d time.Duration) Option {
	return func(c *config) { c.openTimeout = d }
}

func newConfig(opts []Option) (config, error) {
	c := config{
		backoffMin: DefaultBackoffMin, backoffMax: DefaultBackoffMax,
		pingEvery: DefaultPingEvery, pingTimeout: DefaultPingTimeout,
		openTimeout: DefaultOpenTimeout,
	}
	for _, o := range opts {
		o(&c)
	}
	switch {
	case c.backoffMin <= 0 || c.backoffMax < c.backoffMin:
		return c, invalid("backoff needs 0 < min <= max, got %v..%v", c.backoffMin, c.backoffMax)
	case c.pingEvery <= 0 || c.pingTimeout <= 0 || c.openTimeout <= 0:
		return c, invalid("health check and open timeout must be positive")
	case c.browser.ControlURL != "":
		return c, invalid("browser options must not set ControlURL: the endpoints are the URLs")
	case c.browser.UserContext:
		return c, invalid("a farm gives every call its own context: UserContext does not apply")
	}
	return c, nil
}
