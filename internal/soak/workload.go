package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"time"
)

// request is one kind of request the clients send.
type request struct {
	kind   string
	method string
	path   string
	body   func(n int) string
	weight int
}

// mix: reads, an act call that creates a customer, routed turns and
// listings, as a deployment sees them.
var mix = []request{
	{"find_customer", "POST", "/v1/macros/find_customer", func(int) string { return `{"query":"initech"}` }, 4},
	{"list_orders", "POST", "/v1/macros/list_orders", func(int) string { return `{"status":"pending"}` }, 2},
	{"add_customer", "POST", "/v1/macros/add_customer", func(n int) string {
		return fmt.Sprintf(`{"name":"Soak %d","email":"soak%d@example.com"}`, n, n)
	}, 1},
	{"ask", "POST", "/v1/ask", func(int) string { return `{"request":"find initech"}` }, 2},
	{"list", "GET", "/v1/macros", nil, 1},
}

// stats counts requests, errors by kind and latencies, per interval and in
// total.
type stats struct {
	mu       sync.Mutex
	requests int
	errors   map[string]int
	lat      []time.Duration
	total    int
	totalErr map[string]int
	allLat   []time.Duration
}

func newStats() *stats { return &stats{errors: map[string]int{}, totalErr: map[string]int{}} }

func (s *stats) add(d time.Duration, errKind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.total++
	s.lat = append(s.lat, d)
	s.allLat = append(s.allLat, d)
	if errKind != "" {
		s.errors[errKind]++
		s.totalErr[errKind]++
	}
}

// interval returns and resets the interval's counts.
func (s *stats) interval() (int, map[string]int, []time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, e, l := s.requests, s.errors, s.lat
	s.requests, s.errors, s.lat = 0, map[string]int{}, nil
	return n, e, l
}

func percentile(l []time.Duration, p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	c := append([]time.Duration(nil), l...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return c[min(len(c)-1, int(p*float64(len(c))))]
}

// client sends requests from the mix until ctx is done.
func client(ctx context.Context, hc *http.Client, base, token string, id int, seq *counter, st *stats) {
	total := 0
	for _, r := range mix {
		total += r.weight
	}
	rng := rand.New(rand.NewPCG(uint64(id), 42))
	for ctx.Err() == nil {
		pick := rng.IntN(total)
		var r request
		for _, r = range mix {
			if pick < r.weight {
				break
			}
			pick -= r.weight
		}
		var body io.Reader
		if r.body != nil {
			body = bytes.NewReader([]byte(r.body(seq.next())))
		}
		req, _ := http.NewRequestWithContext(ctx, r.method, base+r.path, body)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return // the run ended mid-request: not an error of the server
			}
			st.add(time.Since(start), r.kind+": transport: "+short(err))
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		kind := ""
		if resp.StatusCode >= 300 {
			var e struct {
				Error json.RawMessage `json:"error"`
			}
			code := ""
			if json.Unmarshal(b, &e) == nil && len(e.Error) > 0 {
				var c struct {
					Code string `json:"code"`
				}
				if json.Unmarshal(e.Error, &c) == nil {
					code = c.Code
				} else {
					code = string(e.Error)
				}
			}
			kind = fmt.Sprintf("%s: %d %s", r.kind, resp.StatusCode, code)
		}
		st.add(time.Since(start), kind)
	}
}

func short(err error) string {
	var ue interface{ Unwrap() error }
	for errors.As(err, &ue) && ue.Unwrap() != nil {
		err = ue.Unwrap()
	}
	s := err.Error()
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) next() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}
