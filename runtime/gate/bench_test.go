package gate

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchLogs writes about size bytes of session logs into dir, in files of
// about 1 MB: per session, a mix of macro turns (with their verification
// evidence), chat turns, explore turns below the threshold and
// add-a-customer turns done by hand (findings, about one turn in five), and
// now and then a torn line.
func benchLogs(tb testing.TB, dir string, size int) int64 {
	tb.Helper()
	var total int64
	for f := 0; total < int64(size); f++ {
		var sb strings.Builder
		for s := 0; sb.Len() < 1<<20; s++ {
			l := newLog(fmt.Sprintf("20260101T000000Z-%04d%04d", f, s))
			for turn := 0; turn < 10; turn++ {
				n := f*100000 + s*10 + turn
				switch turn % 5 {
				case 0:
					name := fmt.Sprintf("Customer %d", n)
					l.addCustomer(demo, fmt.Sprintf("add customer %s, c%d@example.com, on the pro tier", name, n), name, fmt.Sprintf("c%d@example.com", n), []string{"free", "pro", "enterprise"}[n%3])
				case 1, 3:
					l.user(fmt.Sprintf("find customer number %d", n))
					l.macro("find_customer", map[string]any{"query": fmt.Sprintf("c%d", n)})
					l.assistant("Found one customer.")
				case 2:
					l.user("open the orders page")
					l.raw(toolGoto, map[string]any{"url": demo + "/orders"}, nil, "about:blank", demo+"/orders")
					l.raw(toolSnapshot, map[string]any{}, map[string]any{"menu": []any{"a", "b"}}, demo+"/orders", demo+"/orders")
					l.assistant("Here are the orders.")
				case 4:
					l.user("thanks")
					l.assistant("You're welcome.")
					if s%7 == 0 {
						l.line(`{"v":1,"type":"assistant","session":"x","tu`)
					}
				}
			}
			sb.WriteString(l.String())
		}
		total += int64(sb.Len())
		writeLog(tb, dir, fmt.Sprintf("%03d.jsonl", f), sb.String())
	}
	return total
}

var (
	benchOnce sync.Once
	benchDir  string
	benchSize int64
)

// BenchmarkGateScan reads about 50 MB of JSONL (GATE_BENCH_MB sets
// another size) and builds the report. It reports throughput per wall
// second (MB/s) and per CPU second of the process, GC included (MB/cpu-s:
// steady on a shared machine), allocations, and the peak live heap sampled
// during the run (peak-heap-MB), which stays flat in the input size: only
// the current turn, the listed findings (at most MaxFindings) and
// MaxSamples occurrences per group are held.
//
//	go test ./runtime/gate -run '^$' -bench GateScan -benchmem
func BenchmarkGateScan(b *testing.B) {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gate-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
		mb := 50
		if v, err := strconv.Atoi(os.Getenv("GATE_BENCH_MB")); err == nil && v > 0 {
			mb = v
		}
		benchSize = benchLogs(b, dir, mb<<20)
	})
	paths := []string{benchDir}
	b.SetBytes(benchSize)
	b.ReportAllocs()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	b.ResetTimer()
	cpu0 := processCPU()
	var r *Report
	for i := 0; i < b.N; i++ {
		var err error
		if r, err = Scan(paths, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := processCPU() - cpu0
	close(stop)
	<-done
	if cpu > 0 {
		b.ReportMetric(float64(benchSize)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
	b.ReportMetric(float64(peak.Load())/1e6, "peak-heap-MB")
	b.ReportMetric(float64(r.Stats.Findings), "findings")
	if r.Stats.Findings == 0 || len(r.Groups) == 0 {
		b.Fatalf("no findings: %+v", r.Stats)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
