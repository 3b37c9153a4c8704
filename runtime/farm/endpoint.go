package farm

import (
	"time"
)

// endpoint is one remote browser and what the farm knows of it. Its
// fields are guarded by the farm's mutex.
type endpoint struct {
	url    string
	inUse  int
	conn   *conn    // the live connection; nil before the first call and after a drop
	dial   *dialing // a connection being made
	leases map[*lease]struct{}

	down     bool
	probing  bool // a call is trying a down endpoint again
	failures int  // consecutive, for the backoff
	retryAt  time.Time
	lastErr  string
	errAt    time.Time
}

// EndpointStatus is a snapshot of one endpoint, for /healthz and metrics.
type EndpointStatus struct {
	URL string `json:"url"`
	// Up is false while the endpoint is down (in its backoff or being
	// probed); an endpoint not tried yet is up.
	Up bool `json:"up"`
	// Connected: the farm holds a live connection to it.
	Connected bool `json:"connected"`
	InUse     int  `json:"in_use"`
	Slots     int  `json:"slots"`
	// Failures counts consecutive failures; RetryAt is when a down
	// endpoint is probed next.
	Failures    int       `json:"failures,omitempty"`
	RetryAt     time.Time `json:"retry_at,omitzero"`
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
}

// markDown records a failure and puts the endpoint in its backoff. A
// failure within the current backoff (the other calls that waited on the
// same failed connect) only updates the error, so one outage does not
// count many times.
func (e *endpoint) markDown(err error, c *config, now time.Time) {
	e.lastErr, e.errAt = err.Error(), now
	if e.down && now.Before(e.retryAt) {
		return
	}
	e.down = true
	e.failures++
	d := c.backoffMin
	for i := 1; i < e.failures && d < c.backoffMax; i++ {
		d *= 2
	}
	e.retryAt = now.Add(min(d, c.backoffMax))
}

// markUp records a page opened on the endpoint.
func (e *endpoint) markUp() {
	e.down, e.failures, e.retryAt = false, 0, time.Time{}
}

func (e *endpoint) status(slots int) EndpointStatus {
	s := EndpointStatus{URL: e.url, Up: !e.down, Connected: e.conn != nil, InUse: e.inUse, Slots: slots,
		Failures: e.failures, LastError: e.lastErr, LastErrorAt: e.errAt}
	if e.down {
		s.RetryAt = e.retryAt
	}
	return s
}
