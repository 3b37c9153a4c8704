package farm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/browsertest"
)

// startChromium starts a remote endpoint for the test.
func startChromium(t *testing.T) *browsertest.Remote { return browsertest.StartRemote(t) }

func TestNewInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		eps  []string
		per  int
		opts []Option
	}{
		{"no endpoints", nil, 1, nil},
		{"no slots", []string{"ws://127.0.0.1:1/devtools/browser/x"}, 0, nil},
		{"bad scheme", []string{"ftp://127.0.0.1:1"}, 1, nil},
		{"no host", []string{"ws:///devtools/browser/x"}, 1, nil},
		{"listed twice", []string{"http://127.0.0.1:1", "ws://127.0.0.1:1/devtools/browser/x"}, 1, nil},
		{"backoff", []string{"http://127.0.0.1:1"}, 1, []Option{WithBackoff(time.Second, time.Millisecond)}},
		{"control url", []string{"http://127.0.0.1:1"}, 1, []Option{WithBrowserOptions(engine.Options{ControlURL: "ws://x"})}},
		{"user context", []string{"http://127.0.0.1:1"}, 1, []Option{WithBrowserOptions(engine.Options{UserContext: true})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := New(tc.eps, tc.per, tc.opts...)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("New = %v, %v; want ErrInvalid", f, err)
			}
		})
	}
}

// TestFarm runs two real Chromium processes as the farm's endpoints, one
// named by its websocket URL and one by its HTTP address, and shares them
// across the subtests; the last subtest kills them.
func TestFarm(t *testing.T) {
	a, b := startChromium(t), startChromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "k", Value: "v"})
		}
		fmt.Fprint(w, "<title>farm</title><p>hello</p>")
	}))
	defer srv.Close()
	eps := []string{a.WS, b.HTTPURL(t)}

	t.Run("pages spread and stay within the slot limit", func(t *testing.T) {
		f := newFarm(t, eps, 2)
		ctx := context.Background()
		var held []func()
		perEP := map[string]int{}
		var heldOn []string
		for range 4 {
			p, rel, ep := take(t, f, ctx)
			held, heldOn = append(held, rel), append(heldOn, ep)
			perEP[ep]++
			goTitle(t, p, srv.URL)
		}
		if perEP[eps[0]] != 2 || perEP[eps[1]] != 2 || f.InUse() != 4 || f.Slots() != 4 {
			t.Fatalf("per endpoint %v, in use %d of %d; want 2 and 2 of 4", perEP, f.InUse(), f.Slots())
		}
		for _, s := range f.Endpoints() {
			if !s.Up || !s.Connected || s.InUse != 2 {
				t.Fatalf("status %+v; want up, connected, 2 in use", s)
			}
		}
		// Full, not down: a call waits as long as its context allows.
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		_, _, err := f.Pages(short)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Pages on a full farm = %v; want the context's deadline", err)
		}
		got := make(chan string, 1)
		go func() {
			tctx, tr := Track(ctx)
			_, rel, err := f.Pages(tctx)
			if err != nil {
				got <- err.Error()
				return
			}
			rel()
			got <- tr.Endpoints()[0]
		}()
		held[3]()
		if ep := <-got; ep != heldOn[3] {
			t.Fatalf("the waiting call got %q; want the slot freed on %s", ep, heldOn[3])
		}
		for _, rel := range held[:3] {
			rel()
		}
		if f.InUse() != 0 {
			t.Fatalf("in use %d after every release", f.InUse())
		}

		// Many calls at once never put more than perEndpoint pages on one
		// endpoint.
		var mu sync.Mutex
		cur, peak := map[string]int{}, map[string]int{}
		var wg sync.WaitGroup
		var failed atomic.Value
		for range 8 { // twice the slots: half of them wait
			wg.Go(func() {
				tctx, tr := Track(ctx)
				_, rel, err := f.Pages(tctx)
				if err != nil {
					failed.Store(err)
					return
				}
				defer rel()
				ep := tr.Endpoints()[0]
				mu.Lock()
				cur[ep]++
				peak[ep] = max(peak[ep], cur[ep])
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
				mu.Lock()
				cur[ep]--
				mu.Unlock()
			})
		}
		wg.Wait()
		if err := failed.Load(); err != nil {
			t.Fatal(err)
		}
		if len(peak) != 2 || peak[eps[0]] > 2 || peak[eps[1]] > 2 {
			t.Fatalf("peak pages per endpoint %v; want both used, at most 2 each", peak)
		}
	})

	t.Run("every page has its own context", func(t *testing.T) {
		f := newFarm(t, eps[:1], 2)
		ctx := context.Background()
		p1, rel1, _ := take(t, f, ctx)
		defer rel1()
		p2, rel2, _ := take(t, f, ctx)
		defer rel2()
		goTitle(t, p1, srv.URL+"/set")
		goTitle(t, p2, srv.URL)
		if c1, c2 := eval(t, p1, "document.cookie"), eval(t, p2, "document.cookie"); c1 != "k=v" || c2 != "" {
			t.Fatalf("cookies %q and %q; want k=v only where it was set", c1, c2)
		}
	})

	t.Run("a dead endpoint goes down and the other takes the calls", func(t *testing.T) {
		f := newFarm(t, eps, 2, WithBackoff(200*time.Millisecond, time.Second), WithHealthCheck(300*time.Millisecond, time.Second))
		ctx := context.Background()
		pa, relA, trA := takeTracked(t, f, ctx)
		_, relB, trB := takeTracked(t, f, ctx)
		if epA, epB := trA.Endpoints()[0], trB.Endpoints()[0]; epA != eps[0] || epB != eps[1] {
			t.Fatalf("pages on %s and %s; want one on each", epA, epB)
		}
		goTitle(t, pa, srv.URL)

		killed := time.Now()
		a.Kill()
		eventually(t, func() bool { return !f.Endpoints()[0].Up })
		t.Logf("kill -9 noticed in %v", time.Since(killed).Round(time.Millisecond))
		if st := f.Endpoints()[0]; st.Connected || st.LastError == "" || st.RetryAt.IsZero() || st.InUse != 1 {
			t.Fatalf("dead endpoint %+v; want down, disconnected, its error and retry time, its page still counted", st)
		}
		if ep, lost := trA.Lost(); !lost || ep != eps[0] {
			t.Fatalf("Lost() = %q, %v for the page on the dead endpoint", ep, lost)
		}
		if _, lost := trB.Lost(); lost {
			t.Fatal("the page on the live endpoint reads as lost")
		}
		gctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := pa.Goto(gctx, srv.URL)
		cancel()
		if err == nil {
			t.Fatal("a page of the dead browser navigated")
		}
		start := time.Now()
		relA()
		if d := time.Since(start); d > time.Second {
			t.Fatalf("releasing a page of the dead endpoint took %v", d)
		}
		for range 3 {
			p, rel, ep := take(t, f, ctx)
			if ep != eps[1] {
				t.Fatalf("a call after the kill went to %s", ep)
			}
			goTitle(t, p, srv.URL)
			rel()
		}

		// A hung browser (SIGSTOP: its socket stays open) fails the
		// health ping and goes down; once it answers again, the first call
		// after its backoff reconnects.
		stopped := time.Now()
		b.Signal(syscall.SIGSTOP)
		eventually(t, func() bool { return !f.Endpoints()[1].Up })
		t.Logf("hung browser noticed in %v", time.Since(stopped).Round(time.Millisecond))
		if _, lost := trB.Lost(); !lost {
			t.Fatal("the page on the hung endpoint does not read as lost")
		}
		relB()
		b.Signal(syscall.SIGCONT)
		time.Sleep(time.Until(f.Endpoints()[1].RetryAt))
		p, rel, ep := take(t, f, ctx)
		if ep != eps[1] {
			t.Fatalf("the call after the backoff went to %s", ep)
		}
		goTitle(t, p, srv.URL)
		rel()
		if st := f.Endpoints()[1]; !st.Up || !st.Connected || st.Failures != 0 {
			t.Fatalf("endpoint after it recovered %+v; want up, connected, no failures", st)
		}

		killed = time.Now()
		b.Kill()
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, _, err = f.Pages(pctx)
		took := time.Since(killed)
		var fe *Error
		if !errors.Is(err, ErrNoEndpoint) || !errors.As(err, &fe) || fe.RetryIn <= 0 {
			t.Fatalf("Pages with every endpoint dead = %v; want ErrNoEndpoint with a RetryIn", err)
		}
		if took > 2*time.Second {
			t.Fatalf("ErrNoEndpoint took %v", took)
		}
		t.Logf("both dead: %v in %v", err, took.Round(time.Millisecond))

		// After the backoff each endpoint is probed again; both refuse.
		before := f.Endpoints()
		time.Sleep(time.Until(latest(f.Endpoints())) + 10*time.Millisecond)
		start = time.Now()
		_, _, err = f.Pages(pctx)
		if !errors.Is(err, ErrNoEndpoint) || time.Since(start) > 2*time.Second {
			t.Fatalf("Pages after the backoff = %v in %v; want ErrNoEndpoint at once", err, time.Since(start))
		}
		for i, s := range f.Endpoints() {
			if s.Up || s.Failures != before[i].Failures+1 || s.InUse != 0 || !s.RetryAt.After(before[i].RetryAt) {
				t.Fatalf("status after a failed probe %+v (before %+v); want down, one more failure, a later retry, nothing in use", s, before[i])
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.Pages(ctx); !errors.Is(err, ErrClosed) {
			t.Fatalf("Pages after Close = %v", err)
		}
	})
}

func newFarm(t *testing.T, eps []string, per int, opts ...Option) *Farm {
	t.Helper()
	f, err := New(eps, per, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// take opens a page and reports which endpoint served it.
func take(t *testing.T, f *Farm, ctx context.Context) (*engine.Page, func(), string) {
	t.Helper()
	p, rel, tr := takeTracked(t, f, ctx)
	return p, rel, tr.Endpoints()[0]
}

// takeTracked opens a page with a Tracker on the call.
func takeTracked(t *testing.T, f *Farm, ctx context.Context) (*engine.Page, func(), *Tracker) {
	t.Helper()
	ctx, tr := Track(ctx)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	p, rel, err := f.Pages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if eps := tr.Endpoints(); len(eps) != 1 {
		t.Fatalf("tracked endpoints %v", eps)
	}
	return p, rel, tr
}

func goTitle(t *testing.T, p *engine.Page, u string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Goto(ctx, u); err != nil {
		t.Fatal(err)
	}
	if title := eval(t, p, "document.title"); title != "farm" {
		t.Fatalf("title %q", title)
	}
}

func eval(t *testing.T, p *engine.Page, js string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := p.Rod().Context(ctx).Eval("() => " + js)
	if err != nil {
		t.Fatal(err)
	}
	return res.Value.Str()
}

func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("condition not met in 5s")
		}
	}
}

func latest(ss []EndpointStatus) time.Time {
	var l time.Time
	for _, s := range ss {
		if s.RetryAt.After(l) {
			l = s.RetryAt
		}
	}
	return l
}
