package queue

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// heldMsg is a delivered job its worker heartbeats from the moment it
// arrives until it is acked, nak'ed or terminated. Heartbeating only while
// the handler runs left the checks before it (the stored result, the start
// mark, the cancel watch: server round trips that take seconds on a loaded
// server) and the storing of the outcome unprotected, and a job whose
// worker was alive was delivered again.
type heldMsg struct {
	jetstream.Msg
	stop func()
}

// hold starts msg's heartbeat: InProgress at once, then every period (a
// third of the consumer's ack wait as the server reports it, not of this
// worker's configuration: another worker may have made the consumer).
func hold(msg jetstream.Msg, every time.Duration) *heldMsg {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = msg.InProgress()
		t := time.NewTicker(max(every, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	var once sync.Once
	return &heldMsg{Msg: msg, stop: func() { once.Do(func() { cancel(); <-done }) }}
}

// The settling calls stop the heartbeat first: a progress report after a
// nak would push its redelivery back by a whole ack wait.

// Ack stops the heartbeat and acks.
func (m *heldMsg) Ack() error { m.stop(); return m.Msg.Ack() }

// DoubleAck stops the heartbeat and acks, waiting for the server.
func (m *heldMsg) DoubleAck(ctx context.Context) error { m.stop(); return m.Msg.DoubleAck(ctx) }

// Nak stops the heartbeat and naks.
func (m *heldMsg) Nak() error { m.stop(); return m.Msg.Nak() }

// NakWithDelay stops the heartbeat and naks with a redelivery delay.
func (m *heldMsg) NakWithDelay(d time.Duration) error { m.stop(); return m.Msg.NakWithDelay(d) }

// Term stops the heartbeat and terminates the message.
func (m *heldMsg) Term() error { m.stop(); return m.Msg.Term() }

// TermWithReason stops the heartbeat and terminates the message.
func (m *heldMsg) TermWithReason(reason string) error { m.stop(); return m.Msg.TermWithReason(reason) }
