package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/macrokit/macrokit-go/runtime/identity"
	"github.com/macrokit/macrokit-go/runtime/identity/kvstore"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/worker"
	"github.com/urfave/cli/v2"
)

// WorkerOptions are worker's flags.
type WorkerOptions struct {
	NATS        NATSOptions
	Concurrency int
	// Listen is where /metrics and /healthz are served ("" or "off": not
	// served).
	Listen string
	// Approval is what a dangerous job needs: "job" (the approval its
	// enqueuer put in it), "yes" (none), "deny" (never runs).
	Approval string
	Timeout  time.Duration
	// IdentityStore is where identities' state is kept: "nats" (the
	// fleet's KV bucket, shared by every worker: one login per identity
	// across the fleet) or "local" (this machine's state directory).
	IdentityStore string
	SessionDir    string
	Screenshots   runtime.ShotMode
	Browser       engine.Options
	// CDP lists remote browsers (a farm) to run jobs on instead of a
	// local Chromium; PerBrowser is each one's page limit (0: the
	// concurrency spread over them).
	CDP        []string
	PerBrowser int
	// Ready, when set, is told the metrics address once the worker pulls
	// (tests read it; the command prints it).
	Ready func(addr string)
}

// The worker's approval policies.
const (
	WorkerApproveJob  = "job"
	WorkerApproveYes  = "yes"
	WorkerApproveDeny = "deny"
)

// The worker's identity stores.
const (
	WorkerIdentitiesNATS  = "nats"
	WorkerIdentitiesLocal = "local"
)

// DefaultWorkerListen is where a worker serves /metrics and /healthz.
const DefaultWorkerListen = "127.0.0.1:9464"

// WorkerCommand is `worker --nats URL`: run the queue's jobs on this
// machine's browsers until SIGTERM, then drain.
func WorkerCommand(cfg *Config) *cli.Command {
	flags := natsFlags("the queue to take jobs from")
	flags = append(flags,
		&cli.StringFlag{Name: "name", Usage: "this worker's name in results, reports and metrics (default: HOST:PID; a pod name on Kubernetes)"},
		&cli.IntFlag{Name: "concurrency", Value: 2, Usage: "jobs run at once (browser contexts open at once); the worker never holds more unacked jobs"},
		&cli.StringFlag{Name: "listen", Value: DefaultWorkerListen, Usage: "serve /metrics (Prometheus) and /healthz here (off: none; :0 picks a port)"},
		&cli.StringFlag{Name: "approval", Value: WorkerApproveJob, Usage: "dangerous jobs: job (run only with the approval its enqueuer obtained), yes (run all), deny (run none)"},
		&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "bound for one job"},
		&cli.DurationFlag{Name: "ack-wait", Value: queue.DefaultAckWait, Usage: "how long a job may go without a heartbeat before the server gives it to another worker; the shared consumer's setting: unset takes the consumer's, a different one is refused (docs/scale.md)"},
		&cli.IntFlag{Name: "max-deliver", Value: queue.DefaultMaxDeliver, Usage: "deliveries of a job before it goes to the dead letter"},
		&cli.DurationFlag{Name: "grace", Value: 30 * time.Second, Usage: "on SIGTERM, how long running jobs may finish before they are handed back to the queue"},
		&cli.StringFlag{Name: "identity-store", Value: WorkerIdentitiesNATS, Usage: "where identities' logins are kept: nats (the fleet's KV bucket " + kvstore.DefaultBucket + ", shared: one login per identity across the fleet) or local (this machine's .macrokit/identities)"},
		&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "where the worker's session log goes (empty: no log)"},
		screenshotsFlag(),
	)
	flags = append(flags, workerBrowserFlags()...)
	return &cli.Command{
		Name:  "worker",
		Usage: "run macro jobs from a NATS JetStream queue on this machine's browsers until SIGTERM (docs/scale.md)",
		Description: "Pulls jobs (from batch --nats, serve --nats or any publisher) from the shared durable consumer, runs each\n" +
			"through the runtime with its evidence, stores the outcome, then acks. A job an earlier delivery may have run\n" +
			"is not rerun blindly: read macros rerun, act and dangerous macros are decided by their done_check, else uncertain.",
		Flags: flags,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usagef("worker takes no arguments (got %q)", c.Args().First())
			}
			shots, err := shotMode(c)
			if err != nil {
				return err
			}
			no := natsOptions(c, cfg.getenv)
			no.MaxDeliver, no.Grace = c.Int("max-deliver"), c.Duration("grace")
			if c.IsSet("ack-wait") {
				// Unset takes the shared consumer's (its creator's,
				// else the default): only a given value can conflict.
				no.AckWait = c.Duration("ack-wait")
			}
			no.Worker = c.String("name")
			return runWorker(c.Context, newEnv(c, cfg), WorkerOptions{NATS: no, Concurrency: c.Int("concurrency"), Listen: c.String("listen"),
				Approval: c.String("approval"), Timeout: c.Duration("timeout"), IdentityStore: c.String("identity-store"), SessionDir: c.String("session-dir"),
				Screenshots: shots, Browser: engine.Options{Bin: c.String("browser"), Headed: c.Bool("headed")},
				CDP: c.StringSlice("cdp"), PerBrowser: c.Int("per-browser")})
		},
	}
}

func runWorker(ctx context.Context, env *Env, o WorkerOptions) error {
	cfg := env.Config
	switch {
	case o.Concurrency < 1:
		return Usagef("--concurrency must be at least 1")
	case o.Approval != WorkerApproveJob && o.Approval != WorkerApproveYes && o.Approval != WorkerApproveDeny:
		return Usagef("--approval %q: want job, yes or deny", o.Approval)
	case o.IdentityStore != WorkerIdentitiesNATS && o.IdentityStore != WorkerIdentitiesLocal:
		return Usagef("--identity-store %q: want nats or local", o.IdentityStore)
	case o.NATS.AckWait < 0 || o.NATS.MaxDeliver < 0 || o.NATS.Grace < 0:
		return Usagef("--ack-wait, --max-deliver and --grace must not be negative")
	}
	if o.NATS.Worker == "" {
		host, _ := os.Hostname()
		o.NATS.Worker = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	var metrics *worker.Metrics // set before Work starts, the only caller of OnError
	o.NATS.OnError = func(op, id string, err error) {
		metrics.QueueError(op)
		fmt.Fprintf(env.Stderr, "worker %s: job %s: queue %s failed (the job is not lost: it comes back): %v\n", o.NATS.Worker, id, op, err)
	}
	q, err := openQueue(ctx, o.NATS, "macrokit worker "+o.NATS.Worker)
	if err != nil {
		return err
	}
	defer q.Close()
	var shared identity.Keeper
	if o.IdentityStore == WorkerIdentitiesNATS {
		st, err := openSharedIdentities(ctx, cfg, q)
		if err != nil {
			return err
		}
		shared = st
	}

	br, err := newWorkerBrowsers(o)
	if err != nil {
		return err
	}
	defer br.close()

	base := runtime.Dispatcher{Registry: cfg.Registry, Pages: br.pages, Getenv: cfg.getenv, Primitives: cfg.Primitives,
		Timeout: o.Timeout, Sites: cfg.SitePolicy()}
	logPath := ""
	if o.SessionDir != "" {
		log, err := sessionlog.Open(o.SessionDir, sessionlog.NewID())
		if err != nil {
			return Failf("%v", err)
		}
		defer log.Close()
		base.Log = log
		base.Screenshots, base.ShotDir = o.Screenshots, o.SessionDir
		logPath = log.Path()
		if abs, err := filepath.Abs(logPath); err == nil {
			logPath = abs
		}
		_ = log.Append(sessionlog.Record{Type: sessionlog.RecSystem, Event: "worker", Data: map[string]any{"worker": o.NATS.Worker, "stream": q.Config().Stream, "concurrency": o.Concurrency}})
	}
	idents := &workerIdentities{cfg: cfg, shared: shared, byName: map[string]*runtime.Identity{}}
	metrics = worker.NewMetrics(br.inUse, br.slots)
	h := &worker.Handler{
		Registry: cfg.Registry,
		Dispatcher: func(job queue.Job) (*runtime.Dispatcher, error) {
			return workerDispatcher(base, idents, o.Approval, job)
		},
		Ready: br.ready,
		Paused: func(err error) {
			if err != nil {
				fmt.Fprintf(env.Stderr, "worker %s: no usable browser (%v): taking no jobs until one is back (they stay queued for other workers)\n", o.NATS.Worker, err)
				return
			}
			fmt.Fprintf(env.Stderr, "worker %s: a browser is back: taking jobs again\n", o.NATS.Worker)
		},
		Lost:       br.lost,
		Track:      br.track,
		SessionLog: logPath,
		Metrics:    metrics,
	}
	checks := []worker.Check{{Name: "nats", Check: q.Connected}}
	if br.check != nil {
		checks = append(checks, *br.check)
	}

	addr := ""
	if o.Listen != "" && o.Listen != "off" {
		ln, err := net.Listen("tcp", o.Listen)
		if err != nil {
			return Failf("worker: --listen %s: %v", o.Listen, err)
		}
		addr = ln.Addr().String()
		srv := &http.Server{Handler: worker.Mux(metrics, checks...), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
	}
	where := ""
	if addr != "" {
		where = fmt.Sprintf("; metrics at http://%s/metrics", addr)
	}
	// Said once the worker has joined the consumer: its ack wait is the
	// consumer's, and a conflicting --ack-wait stops it before this.
	joined := queue.Joined(func(ackWait time.Duration) {
		fmt.Fprintf(env.Stderr, "worker %s: taking jobs from %s at %s, %d at a time, ack wait %s%s\n", o.NATS.Worker, q.Config().Stream, o.NATS.URL, o.Concurrency, ackWait, where)
		if o.Ready != nil {
			o.Ready(addr)
		}
	})
	if err := q.Work(ctx, o.Concurrency, h.Handle, queue.Gate(h.WaitReady), joined); err != nil {
		var conflict *queue.AckWaitConflict
		if errors.As(err, &conflict) {
			return Usagef("worker: --ack-wait %s: the consumer %s on %s, which every worker shares, has ack wait %s, and every worker heartbeats from it; drop --ack-wait to take it, or to change it stop every worker, delete the consumer (nats consumer rm %s %s: its jobs stay on the stream) and start them with the new --ack-wait",
				conflict.Want, conflict.Consumer, conflict.Stream, conflict.Have, conflict.Stream, conflict.Consumer)
		}
		return Failf("worker: %v", err)
	}
	// Drained: every job this worker held is stored and acked, or nak'ed
	// for another worker. Pages still open belong to handlers cut off by
	// the grace; they close with the browser.
	fmt.Fprintf(env.Stderr, "worker %s: drained, stopping\n", o.NATS.Worker)
	return nil
}

// workerDispatcher is the dispatcher a job runs on: its identity's, and
// for a dangerous macro an approver by the worker's policy.
func workerDispatcher(base runtime.Dispatcher, idents *workerIdentities, policy string, job queue.Job) (*runtime.Dispatcher, error) {
	id, err := idents.get(job.Identity)
	if err != nil {
		return nil, err
	}
	d := base
	d.Identity = id
	switch {
	case policy == WorkerApproveYes:
		d.Approver = yesApprover()
	case policy == WorkerApproveJob && job.Approval != nil:
		who := job.Approval.Channel
		if job.Approval.Who != "" {
			who = job.Approval.Who + " via " + job.Approval.Channel
		}
		d.Approver = runtime.AuditedApprover(runtime.AlwaysApprove, audit.ChannelQueue, who)
	}
	return &d, nil
}

// openSharedIdentities opens the fleet's identity store on the queue's
// connection, sealed with MACROKIT_IDENTITY_KEY when it is set (every
// worker then needs the same key).
func openSharedIdentities(ctx context.Context, cfg *Config, q *natsQueue) (*kvstore.Store, error) {
	key, err := identity.KeyFromEnv(cfg.getenv)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	st, err := kvstore.Open(octx, q.js, kvstore.Config{Key: key})
	if err != nil {
		return nil, Failf("worker: the shared identity store: %v", err)
	}
	return st, nil
}

// workerIdentities keeps one runtime.Identity per name for the worker's
// life, so concurrent jobs of one identity share its login flight.
type workerIdentities struct {
	cfg    *Config
	shared identity.Keeper // nil: local files (or memory), as callIdentity
	mu     sync.Mutex
	byName map[string]*runtime.Identity
}

func (w *workerIdentities) get(name string) (*runtime.Identity, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if id, ok := w.byName[name]; ok {
		return id, nil
	}
	id, err := callIdentityIn(w.cfg, name, w.shared)
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			err = ee.Err
		}
		return nil, &runtime.CallError{Code: runtime.CodeIdentity, Message: err.Error(), Err: err}
	}
	w.byName[name] = id
	return id, nil
}
