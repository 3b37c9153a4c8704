package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/macrokit/macrokit-go/runtime/identity"
	"github.com/macrokit/macrokit-go/runtime/queue"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/urfave/cli/v2"
)

// EnvNATS is the NATS server URL of --nats (worker, batch, serve).
const EnvNATS = "MACROKIT_NATS"

// natsFlags are the queue's flags: where the server is and which stream.
func natsFlags(usage string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "nats", Usage: usage + " (NATS server URL, e.g. nats://127.0.0.1:4222; default: $" + EnvNATS + ")"},
		&cli.StringFlag{Name: "stream", Value: queue.DefaultStream, Usage: "with --nats: the JetStream work-queue stream (its results bucket is <stream>_RESULTS unless it is the default)"},
	}
}

// NATSOptions say which queue a command uses.
type NATSOptions struct {
	URL    string
	Stream string
	// Worker names this process in stored results ("" = host:pid).
	Worker string
	// AckWait, MaxDeliver and Grace override the queue's defaults (0
	// keeps them).
	AckWait    time.Duration
	MaxDeliver int
	Grace      time.Duration
	// OnError hears of the queue's failed operations (queue.Config).
	OnError func(op, jobID string, err error)
	// Getenv is where MACROKIT_IDENTITY_KEY is read: set, every job's
	// arguments are sealed on the stream with it (nil: none).
	Getenv func(string) string
}

func natsOptions(c *cli.Context, getenv func(string) string) NATSOptions {
	return NATSOptions{URL: firstOf(c.String("nats"), getenv(EnvNATS)), Stream: c.String("stream"), Getenv: getenv}
}

// queueConfig is the queue of o: the default stream has the default
// bucket; another stream gets its own, so two queues never share results.
func (o NATSOptions) queueConfig() queue.Config {
	cfg := queue.Config{Stream: o.Stream, Worker: o.Worker, AckWait: o.AckWait, MaxDeliver: o.MaxDeliver, Grace: o.Grace, OnError: o.OnError}
	if o.Stream != "" && o.Stream != queue.DefaultStream {
		cfg.Results = o.Stream + "_RESULTS"
		cfg.Durable = o.Stream + "-workers"
		cfg.Subject = "macrokit." + o.Stream + ".>"
	}
	return cfg
}

// natsQueue is an open queue and its connection.
type natsQueue struct {
	*queue.Queue
	nc *nats.Conn
	js jetstream.JetStream
}

// Close closes the connection (after flushing what was published).
func (n *natsQueue) Close() { _ = n.nc.Drain() }

// Connected says whether the connection is up (for /healthz).
func (n *natsQueue) Connected() error {
	if s := n.nc.Status(); s != nats.CONNECTED {
		return fmt.Errorf("NATS connection is %s", s)
	}
	return nil
}

// openQueue connects to o.URL (reconnecting for as long as the process
// lives: a restarted server is waited for) and opens the queue.
func openQueue(ctx context.Context, o NATSOptions, name string) (*natsQueue, error) {
	if o.URL == "" {
		return nil, Usagef("--nats needs a NATS server URL (or $%s)", EnvNATS)
	}
	qc := o.queueConfig()
	if o.Getenv != nil {
		key, err := identity.KeyFromEnv(o.Getenv)
		if err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: err}
		}
		qc.Key = key
	}
	nc, err := nats.Connect(o.URL, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond),
		nats.Timeout(5*time.Second), nats.RetryOnFailedConnect(false))
	if err != nil {
		return nil, Failf("cannot reach NATS at %s: %v", o.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, Failf("NATS at %s: %v", o.URL, err)
	}
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	q, err := queue.Open(octx, js, qc)
	if err != nil {
		nc.Close()
		return nil, Failf("NATS at %s: %v (is JetStream enabled? nats-server -js)", o.URL, err)
	}
	return &natsQueue{Queue: q, nc: nc, js: js}, nil
}

// rowJobID is a batch row's job ID: the batch and a hash of the row's key
// (keys are any text; job IDs are KV keys), the same on every resume.
func rowJobID(batch, key string) string {
	h := sha256.Sum256([]byte(key))
	return batch + "." + hex.EncodeToString(h[:12])
}
