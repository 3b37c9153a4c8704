package queue

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkQueueOverhead measures what the queue adds to one job on
// loopback, one job at a time (latency, not throughput): enqueue -> the
// handler starting (publish, consumer pull, the stored-result and start
// mark reads), and the handler returning -> a collector's Watch getting
// the Result (store, KV watch). Reported as p50/p95 in milliseconds:
//
//	go test ./runtime/queue -run '^$' -bench QueueOverhead -benchtime 300x
func BenchmarkQueueOverhead(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	q, err := Open(context.Background(), connect(b, s), Config{Worker: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	started := map[string]time.Time{}
	returned := map[string]time.Time{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = q.Work(ctx, 1, func(ctx context.Context, d Delivery) Result {
			now := time.Now()
			mu.Lock()
			started[d.Job.ID] = now
			mu.Unlock()
			if err := d.MarkStarted(ctx); err != nil {
				return Retry(err.Error())
			}
			mu.Lock()
			returned[d.Job.ID] = time.Now()
			mu.Unlock()
			return Result{Status: StatusOK}
		})
	}()
	results, err := q.Watch(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	var toStart, toCollector []time.Duration
	b.ResetTimer()
	for i := range b.N {
		id := fmt.Sprintf("bench.%d", i)
		t0 := time.Now()
		if _, err := q.Enqueue(ctx, Job{ID: id, Macro: "m", Batch: "bench"}); err != nil {
			b.Fatal(err)
		}
		select {
		case r := <-results:
			got := time.Now()
			mu.Lock()
			toStart = append(toStart, started[r.JobID].Sub(t0))
			toCollector = append(toCollector, got.Sub(returned[r.JobID]))
			mu.Unlock()
		case <-time.After(30 * time.Second):
			b.Fatalf("no result for %s", id)
		}
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"enqueue-to-start", toStart}, {"result-to-collector", toCollector}} {
		slices.Sort(m.d)
		b.ReportMetric(ms(m.d[len(m.d)/2]), m.name+"-p50-ms")
		b.ReportMetric(ms(m.d[len(m.d)*95/100]), m.name+"-p95-ms")
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkQueueThroughput measures the queue's own ceiling: jobs whose
// handler does nothing but mark its start, 64 handler slots on one
// worker, one embedded server with file storage — every job's publish,
// pull, KV reads and writes, heartbeat start and double ack. The figure
// (jobs/s) bounds what a fleet of browser workers can ask of one server:
//
//	go test ./runtime/queue -run '^$' -bench QueueThroughput -benchtime 2000x
func BenchmarkQueueThroughput(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	q, err := Open(context.Background(), connect(b, s), Config{Worker: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	results, err := q.Watch(ctx, "tp")
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		_ = q.Work(ctx, 64, func(ctx context.Context, d Delivery) Result {
			if err := d.MarkStarted(ctx); err != nil {
				return Retry(err.Error())
			}
			return Result{Status: StatusOK}
		})
	}()
	b.ResetTimer()
	begin := time.Now()
	go func() {
		for i := range b.N {
			if _, err := q.Enqueue(ctx, Job{ID: fmt.Sprintf("tp.%d", i), Macro: "m", Batch: "tp"}); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	for range b.N {
		select {
		case <-results:
		case <-time.After(60 * time.Second):
			b.Fatal("results stopped coming")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(begin).Seconds(), "jobs/s")
}

// BenchmarkWatchStart measures what starting a collector's Watch costs
// until it has its batch's 20 stored results, on a bucket that holds
// only them and on one that also holds 10,000 other jobs' results (a
// long-lived deployment's bucket). The two should be close: the server
// sends only the batch's keys.
//
//	go test ./runtime/queue -run '^$' -bench WatchStart
func BenchmarkWatchStart(b *testing.B) {
	for _, others := range []int{0, 10000} {
		b.Run(fmt.Sprintf("others=%d", others), func(b *testing.B) {
			s := startServer(b, b.TempDir(), -1)
			q, err := Open(context.Background(), connect(b, s), Config{Worker: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for i := range others {
				if err := q.store(ctx, Result{JobID: fmt.Sprintf("old%d.%d", i%100, i), Batch: fmt.Sprintf("old%d", i%100), Status: StatusOK}); err != nil {
					b.Fatal(err)
				}
			}
			const mine = 20
			for i := range mine {
				if err := q.store(ctx, Result{JobID: fmt.Sprintf("mine.%d", i), Batch: "mine", Status: StatusOK}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				wctx, cancel := context.WithCancel(ctx)
				ch, err := q.Watch(wctx, "mine")
				if err != nil {
					b.Fatal(err)
				}
				for range mine {
					<-ch
				}
				cancel()
			}
		})
	}
}
