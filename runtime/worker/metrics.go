package worker

import (
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are a worker's Prometheus metrics, on their own registry (so
// two workers in one test process do not collide). A nil *Metrics counts
// nothing.
type Metrics struct {
	// Registry holds the metrics and the Go and process collectors.
	Registry *prometheus.Registry

	jobs        *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	redelivered *prometheus.CounterVec
	doneChecks  *prometheus.CounterVec
	queueErrors *prometheus.CounterVec
}

// NewMetrics registers the worker's metrics. inUse and slots report the
// browser pool (nil: not exported).
func NewMetrics(inUse, slots func() int) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "macrokit_worker_jobs_total",
			Help: "Jobs handled, by macro and outcome (ok, failed, unverified, uncertain, retry).",
		}, []string{"macro", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "macrokit_worker_job_duration_seconds",
			Help:    "Time from a job's start on this worker to its outcome, by macro.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120},
		}, []string{"macro"}),
		redelivered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "macrokit_worker_redeliveries_total",
			Help: "Deliveries after the first, by macro and whether an earlier delivery had started the job.",
		}, []string{"macro", "may_have_run"}),
		doneChecks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "macrokit_worker_done_checks_total",
			Help: "Done checks of redelivered act/dangerous jobs, by finding (done, not_done, unknown).",
		}, []string{"finding"}),
		queueErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "macrokit_worker_queue_errors_total",
			Help: "Queue operations around a job that failed, by op (read, store, ack, bury): each job comes back, none is lost.",
		}, []string{"op"}),
	}
	reg.MustRegister(m.jobs, m.duration, m.redelivered, m.doneChecks, m.queueErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if inUse != nil {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "macrokit_worker_browser_slots_in_use", Help: "Browser pages held by running jobs.",
		}, func() float64 { return float64(inUse()) }))
	}
	if slots != nil {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "macrokit_worker_browser_slots", Help: "Browser pages this worker can hold at once.",
		}, func() float64 { return float64(slots()) }))
	}
	return m
}

// QueueError counts a failed queue operation (queue.Config.OnError).
func (m *Metrics) QueueError(op string) {
	if m != nil {
		m.queueErrors.WithLabelValues(op).Inc()
	}
}

// observe counts one handled delivery.
func (m *Metrics) observe(d queue.Delivery, r queue.Result, took time.Duration) {
	if m == nil {
		return
	}
	outcome := string(r.Status)
	switch {
	case r.Status == queue.StatusFailed && r.Error != nil && r.Error.Code == queue.CodeRetry:
		outcome = "retry"
	case outcome == "":
		outcome = "none"
	}
	m.jobs.WithLabelValues(d.Job.Macro, outcome).Inc()
	m.duration.WithLabelValues(d.Job.Macro).Observe(took.Seconds())
	if d.Redelivered {
		ran := "false"
		if d.MayHaveRun {
			ran = "true"
		}
		m.redelivered.WithLabelValues(d.Job.Macro, ran).Inc()
	}
}

func (m *Metrics) doneCheck(f runtime.Done) {
	if m == nil {
		return
	}
	m.doneChecks.WithLabelValues(string(f)).Inc()
}
