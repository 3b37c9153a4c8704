package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
)

// options are soak's flags.
type options struct {
	bin         string
	duration    time.Duration
	clients     int
	concurrency int
	interval    time.Duration
	sampleEvery time.Duration
	warmup      time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin/macrokit", "the macrokit binary to soak (make soak builds it)")
	flag.DurationVar(&o.duration, "duration", 5*time.Minute, "how long the clients run")
	flag.IntVar(&o.clients, "clients", 20, "concurrent clients")
	flag.IntVar(&o.concurrency, "concurrency", 4, "the server's --concurrency (pages open at once)")
	flag.DurationVar(&o.interval, "interval", 30*time.Second, "how often to print a report")
	flag.DurationVar(&o.sampleEvery, "sample", 5*time.Second, "how often to read the server's resources")
	flag.DurationVar(&o.warmup, "warmup", 20*time.Second, "samples before this are not judged (the browser starts)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "soak: FAIL:", err)
		stop()
		os.Exit(1)
	}
}

// run soaks the server and returns an error when it leaked or misbehaved.
func run(ctx context.Context, o options, w io.Writer) error {
	if o.clients < 1 || o.duration <= 0 || o.interval <= 0 || o.sampleEvery <= 0 {
		return errors.New("--clients, --duration, --interval and --sample must be positive")
	}
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s: %w (run make build, or make soak)", o.bin, err)
	}
	// The demo site, in this process, on loopback.
	demoLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	demo := &http.Server{Handler: demosite.New(demosite.Options{}).Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = demo.Serve(demoLn) }()
	defer demo.Close()

	addr, err := freeAddr()
	if err != nil {
		return err
	}
	tok := make([]byte, 24)
	_, _ = rand.Read(tok)
	token := hex.EncodeToString(tok)
	dir, err := os.MkdirTemp("", "macrokit-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(bin, "serve", "--http", addr, "--scripted", "demo", "--session-dir", filepath.Join(dir, "sessions"),
		"--concurrency", fmt.Sprint(o.concurrency), "--call-timeout", "60s", "--shutdown-timeout", "20s")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DEMO_URL=http://"+demoLn.Addr().String(), "MACROKIT_SERVE_TOKEN="+token)
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	base := "http://" + addr
	if err := waitHealthy(ctx, base, exited); err != nil {
		return fmt.Errorf("%w\nserver stderr:\n%s", err, stderr.String())
	}
	fmt.Fprintf(w, "soak: %s serve (pid %d) on %s, %d clients for %s, concurrency %d\n", o.bin, pid, base, o.clients, o.duration, o.concurrency)

	hc := &http.Client{Timeout: 90 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.clients}}
	st := newStats()
	var seq counter
	runCtx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	var wg sync.WaitGroup
	for i := range o.clients {
		wg.Go(func() { client(runCtx, hc, base, token, i, &seq, st) })
	}

	start := time.Now()
	var samples []Sample
	var judged []Sample
	chromiumSeen := map[int]bool{}
	sample := func() Sample {
		s := Sample{RSSKB: rssKB(pid), FDs: openFDs(pid)}
		if m, err := metrics(base, token); err == nil {
			s.Goroutines = m.Goroutines
		}
		cs := chromium(pid)
		s.Chromium = len(cs)
		for _, c := range cs {
			chromiumSeen[c] = true
		}
		return s
	}
	tick := time.NewTicker(o.sampleEvery)
	defer tick.Stop()
	nextReport := start.Add(o.interval)
	var agg struct {
		n    int
		errs map[string]int
		lat  []time.Duration
	}
	agg.errs = map[string]int{}
loop:
	for {
		select {
		case <-runCtx.Done():
			break loop
		case err := <-exited:
			killed = true
			return fmt.Errorf("the server exited during the soak: %v\n%s", err, stderr.String())
		case now := <-tick.C:
			s := sample()
			samples = append(samples, s)
			if now.Sub(start) >= o.warmup {
				judged = append(judged, s)
			}
			n, errs, lat := st.interval()
			agg.n += n
			agg.lat = append(agg.lat, lat...)
			for k, v := range errs {
				agg.errs[k] += v
			}
			if !now.Before(nextReport) {
				report(w, now.Sub(start), agg.n, agg.errs, agg.lat, s)
				agg.n, agg.errs, agg.lat = 0, map[string]int{}, nil
				nextReport = nextReport.Add(o.interval)
			}
		}
	}
	wg.Wait()
	final := sample()
	samples = append(samples, final)
	judged = append(judged, final)

	// Stop the server as a supervisor would, and check it left nothing.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	var exitErr error
	select {
	case exitErr = <-exited:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		exitErr = errors.New("did not exit within 60 s of SIGTERM")
		<-exited
	}
	killed = true
	time.Sleep(500 * time.Millisecond)
	var survivors []int
	for c := range chromiumSeen {
		if alive(c) {
			survivors = append(survivors, c)
		}
	}

	st.mu.Lock()
	total, totalErr, allLat := st.total, st.totalErr, st.allLat
	st.mu.Unlock()
	errCount := 0
	for _, v := range totalErr {
		errCount += v
	}
	fmt.Fprintf(w, "soak: done after %s: %d requests, %d errors, p50 %s, p95 %s\n", time.Since(start).Round(time.Second), total, errCount,
		percentile(allLat, 0.50).Round(time.Millisecond), percentile(allLat, 0.95).Round(time.Millisecond))
	printErrors(w, totalErr)
	fmt.Fprintf(w, "soak: resources (first, min-max, last): goroutines %s, rss %s KiB, fds %s, chromium %s\n",
		span(samples, func(s Sample) int { return s.Goroutines }), span(samples, func(s Sample) int { return s.RSSKB }),
		span(samples, func(s Sample) int { return s.FDs }), span(samples, func(s Sample) int { return s.Chromium }))

	var problems []string
	grew, err := Growth(judged, DefaultTolerances)
	if err != nil {
		problems = append(problems, err.Error()+" (run longer, or sample more often)")
	}
	problems = append(problems, grew...)
	if exitErr != nil {
		problems = append(problems, fmt.Sprintf("the server's exit after SIGTERM: %v", exitErr))
	}
	if len(survivors) > 0 {
		problems = append(problems, fmt.Sprintf("%d Chromium process(es) outlived the server: %v", len(survivors), survivors))
	}
	if total == 0 {
		problems = append(problems, "no request completed")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	fmt.Fprintln(w, "soak: PASS (no growth beyond tolerance, clean exit, no Chromium left)")
	return nil
}

func report(w io.Writer, at time.Duration, n int, errs map[string]int, lat []time.Duration, s Sample) {
	e := 0
	for _, v := range errs {
		e += v
	}
	fmt.Fprintf(w, "[%6s] requests %4d  errors %3d  p50 %6s  p95 %6s  goroutines %4d  rss %6d KiB  fds %4d  chromium %3d\n",
		at.Round(time.Second), n, e, percentile(lat, 0.5).Round(time.Millisecond), percentile(lat, 0.95).Round(time.Millisecond),
		s.Goroutines, s.RSSKB, s.FDs, s.Chromium)
	printErrors(w, errs)
}

func printErrors(w io.Writer, errs map[string]int) {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "           error %-50s %d\n", k, errs[k])
	}
}

func span(ss []Sample, get func(Sample) int) string {
	if len(ss) == 0 {
		return "-"
	}
	lo, hi := get(ss[0]), get(ss[0])
	for _, s := range ss {
		lo, hi = min(lo, get(s)), max(hi, get(s))
	}
	return fmt.Sprintf("%d, %d-%d, %d", get(ss[0]), lo, hi, get(ss[len(ss)-1]))
}

// serverMetrics is the part of GET /v1/metrics soak reads.
type serverMetrics struct {
	Goroutines int `json:"goroutines"`
	Conns      int `json:"conns"`
}

func metrics(base, token string) (serverMetrics, error) {
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return serverMetrics{}, err
	}
	defer resp.Body.Close()
	var m serverMetrics
	if resp.StatusCode != http.StatusOK {
		return m, fmt.Errorf("metrics: %s", resp.Status)
	}
	return m, json.NewDecoder(resp.Body).Decode(&m)
}

func waitHealthy(ctx context.Context, base string, exited <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("the server exited at start: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("the server did not answer /healthz within 30 s")
}

// freeAddr is a loopback address nobody listens on (the server binds it
// right after).
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// lockedBuffer collects the server's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
