package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"
)

// TestSealedArgs: on a queue with a key a job's arguments are on the
// stream sealed (the secret is nowhere in the stored message), a worker
// with the key runs the job with them in the clear, and a worker without
// the key, or with another, stores the job failed (sealed_args) without
// running it.
func TestSealedArgs(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	other := bytes.Repeat([]byte{9}, 32)
	const secret = "hunter2-Sealed-9"
	args := json.RawMessage(`{"email":"ada@example.com","password":"` + secret + `"}`)
	for _, tc := range []struct {
		name   string
		worker []byte
		runs   bool
	}{
		{"same key", key, true},
		{"no key", nil, false},
		{"another key", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, t.TempDir(), -1)
			js := connect(t, s)
			cfg := testConfig()
			cfg.Key = key
			enq := openQueue(t, js, cfg)
			cfg.Key = tc.worker
			wq := openQueue(t, js, cfg)
			enqueue(t, enq, Job{ID: "sealed.1", Macro: "login", Args: args})
			raw, err := js.Stream(context.Background(), DefaultStream)
			if err != nil {
				t.Fatal(err)
			}
			msg, err := raw.GetLastMsgForSubject(context.Background(), "macrokit.jobs.login.sealed.1")
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(msg.Data, []byte(secret)) || !bytes.Contains(msg.Data, []byte(`"sealed"`)) {
				t.Errorf("the stream holds %s, want the arguments sealed", msg.Data)
			}
			var calls atomic.Int32
			var got json.RawMessage
			work(t, wq, 1, func(ctx context.Context, d Delivery) Result {
				calls.Add(1)
				got = d.Job.Args
				return Result{Status: StatusOK}
			})
			r := waitResult(t, wq, "sealed.1", 15*time.Second)
			switch {
			case tc.runs && (r.Status != StatusOK || !bytes.Equal(got, args)):
				t.Errorf("result %+v, handler saw %s; want ok with the arguments in the clear", r, got)
			case !tc.runs && (r.Status != StatusFailed || r.Error == nil || r.Error.Code != CodeSealed || calls.Load() != 0):
				t.Errorf("result %+v after %d handler calls; want failed %s, not run", r, calls.Load(), CodeSealed)
			}
		})
	}
}
