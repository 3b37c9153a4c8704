package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestEnqueueDedupe: a retried enqueue (same ID) is one job on the stream,
// and the retry says it was a duplicate; bad IDs and macros are refused.
func TestEnqueueDedupe(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	js := connect(t, s)
	q := openQueue(t, js, testConfig())
	ctx := context.Background()
	cases := []struct {
		name    string
		job     Job
		wantDup bool
		wantErr error
		msgs    uint64 // stream size after
	}{
		{"first", Job{ID: "j1", Macro: "add_customer"}, false, nil, 1},
		{"retried enqueue", Job{ID: "j1", Macro: "add_customer"}, true, nil, 1},
		{"another id", Job{ID: "j2", Macro: "add_customer"}, false, nil, 2},
		{"id with a space", Job{ID: "j 3", Macro: "add_customer"}, false, ErrInvalidJob, 2},
		{"empty id", Job{Macro: "add_customer"}, false, ErrInvalidJob, 2},
		{"macro with a dot", Job{ID: "j4", Macro: "a.b"}, false, ErrInvalidJob, 2},
		{"id with a double dot", Job{ID: "b..1", Macro: "add_customer"}, false, ErrInvalidJob, 2},
		{"batch job outside its batch's keys", Job{ID: "j5", Macro: "add_customer", Batch: "b"}, false, ErrInvalidJob, 2},
		{"batch job under a longer batch's keys", Job{ID: "bb.1", Macro: "add_customer", Batch: "b"}, false, ErrInvalidJob, 2},
		{"batch with a wildcard", Job{ID: "b.>.1", Macro: "add_customer", Batch: "b.>"}, false, ErrInvalidJob, 2},
		{"batch job", Job{ID: "b.1", Macro: "add_customer", Batch: "b"}, false, nil, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dup, err := q.Enqueue(ctx, c.job)
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if dup != c.wantDup {
				t.Errorf("duplicate = %v, want %v", dup, c.wantDup)
			}
			st, err := js.Stream(ctx, q.Config().Stream)
			if err != nil {
				t.Fatal(err)
			}
			info, err := st.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.State.Msgs != c.msgs {
				t.Errorf("stream holds %d messages, want %d", info.State.Msgs, c.msgs)
			}
		})
	}
	if _, err := q.Result(ctx, "j1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Result of an unrun job: %v, want ErrNotFound", err)
	}
}

// TestOpenConfig: defaults are filled in (an unset AckWait stays 0: it
// takes the consumer's) and impossible configurations are refused with
// CodeInvalidConfig.
func TestOpenConfig(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	js := connect(t, s)
	ctx := context.Background()
	q, err := Open(ctx, js, Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := q.Config()
	if c.Stream != DefaultStream || c.Subject != DefaultSubject || c.AckWait != 0 || c.MaxDeliver != DefaultMaxDeliver || c.DuplicateWindow != DefaultDuplicateWindow {
		t.Errorf("defaults not applied: %+v", c)
	}
	st, err := js.Stream(ctx, DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := st.Info(ctx)
	if info.Config.Retention != jetstream.WorkQueuePolicy || info.Config.Storage != jetstream.FileStorage {
		t.Errorf("stream config %+v, want work-queue retention on file storage", info.Config)
	}
	for name, bad := range map[string]Config{
		"negative ack wait":      {AckWait: -1},
		"subject not a wildcard": {Subject: "macrokit.jobs"},
		"max deliver":            {MaxDeliver: -2},
	} {
		if _, err := Open(ctx, js, bad); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: err = %v, want ErrInvalidConfig", name, err)
		}
	}
	if err := q.Work(ctx, 0, ok); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Work with 0 slots: %v, want ErrInvalidConfig", err)
	}
}

// TestWatch: a collector watching one batch gets each of its jobs'
// results once and none of another batch's.
func TestWatch(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	q := openQueue(t, connect(t, s), testConfig())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	enqueue(t, q, jobs("a", 2)...) // stored before the watch starts
	enqueue(t, q, jobs("b", 3)...)
	enqueue(t, q, jobs("aa", 2)...)                // a longer batch name that starts with a
	enqueue(t, q, Job{ID: "a.single", Macro: "m"}) // a single call whose id looks like batch a's
	work(t, q, 2, ok)
	ch, err := q.Watch(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for len(seen) < 2 {
		r := <-ch
		if r.Batch != "a" {
			t.Fatalf("watch of batch a sent %+v", r)
		}
		seen[r.JobID]++
	}
	for _, id := range []string{"b.0", "b.1", "b.2", "aa.0", "aa.1", "a.single"} {
		waitResult(t, q, id, 10e9)
	}
	enqueue(t, q, Job{ID: "a.late", Macro: "m", Batch: "a"})
	if r := <-ch; r.JobID != "a.late" {
		t.Errorf("after the stored ones the watch sent %+v, want a.late", r)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s arrived %d times", id, n)
		}
	}
}

// TestOpenKeepsBucketLimits: a max age an operator gave the results
// bucket (docs/scale.md) survives every later Open, and results stored
// before it are still there.
func TestOpenKeepsBucketLimits(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	js := connect(t, s)
	q := openQueue(t, js, testConfig())
	ctx := context.Background()
	if err := q.store(ctx, Result{JobID: "kept", Status: StatusOK}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.UpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: q.Config().Results, History: 5, Storage: jetstream.FileStorage, TTL: 720 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		q = openQueue(t, js, testConfig())
	}
	st, err := q.results.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.TTL() != 720*time.Hour {
		t.Errorf("after Open the results bucket's max age is %v, want the operator's 720h", st.TTL())
	}
	if _, err := q.Result(ctx, "kept"); err != nil {
		t.Errorf("a result stored before Open: %v", err)
	}
}
