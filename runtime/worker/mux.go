package worker

import (
	"encoding/json"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Check is one named health check: nil is healthy.
type Check struct {
	Name  string
	Check func() error
}

// Mux serves /metrics (m's registry) and /healthz: 200 with every check
// "ok", or 503 naming the failing ones, as JSON.
func Mux(m *Metrics, checks ...Check) *http.ServeMux {
	mux := http.NewServeMux()
	if m != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry}))
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		status := map[string]string{}
		code := http.StatusOK
		for _, c := range checks {
			if err := c.Check(); err != nil {
				status[c.Name] = err.Error()
				code = http.StatusServiceUnavailable
				continue
			}
			status[c.Name] = "ok"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]any{"healthy": code == http.StatusOK, "checks": status})
	})
	return mux
}
