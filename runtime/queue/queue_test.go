package queue

import (
	"context"
	"errors"
	"testing"

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
	for _, id := range []string{"b-0", "b-1", "b-2"} {
		waitResult(t, q, id, 10e9)
	}
	enqueue(t, q, Job{ID: "a-late", Macro: "m", Batch: "a"})
	if r := <-ch; r.JobID != "a-late" {
		t.Errorf("after the stored ones the watch sent %+v, want a-late", r)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s arrived %d times", id, n)
		}
	}
}
