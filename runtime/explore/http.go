package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// httpCall sends one http_request. A status outside 2xx fails the call,
// with the status and the start of the body as evidence.
func (s *Session) httpCall(ctx context.Context, x *runtime.Exec, a rawArgs) (map[string]any, error) {
	start := time.Now()
	rec := runtime.StepRecord{Path: HTTP, Kind: "http", Status: "passed"}
	fail := func(err error) error {
		rec.Duration = time.Since(start)
		return x.FailStep(ctx, rec, err)
	}
	raw, err := s.resolveURL(ctx, a.URL)
	if err != nil {
		return nil, &runtime.CallError{Code: runtime.CodeInvalidArguments, Message: err.Error(), Args: []runtime.ArgError{{Pointer: "/url", Message: err.Error()}}}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fail(err)
	}
	sites := s.policy(ctx)
	if err := sites.Check(u.String()); err != nil {
		rec.Duration = time.Since(start)
		return nil, x.FailStep(ctx, rec, err)
	}
	if len(a.Query) > 0 {
		q := u.Query()
		for k, v := range a.Query {
			q.Set(k, fmt.Sprint(v))
		}
		u.RawQuery = q.Encode()
	}
	method := a.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if len(a.Body) > 0 && string(a.Body) != "null" {
		body = bytes.NewReader(a.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fail(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	client := s.client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	client = sites.Client(client)
	secrets := s.secretList()
	rec.Detail = map[string]any{"method": method, "url": redact.String(u.String(), secrets)}
	resp, err := client.Do(req)
	if err != nil {
		var se *runtime.SiteError
		if errors.As(err, &se) {
			rec.Duration = time.Since(start)
			return nil, x.FailStep(ctx, rec, se)
		}
		return nil, fail(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRawHTTPBody+1))
	if err != nil {
		return nil, fail(fmt.Errorf("read body: %w", err))
	}
	rec.Detail["status"] = resp.StatusCode
	res := map[string]any{"url": redact.String(u.String(), secrets), "method": method, "status": resp.StatusCode}
	var v any
	switch {
	case len(b) > maxRawHTTPBody:
		res["body"], res["truncated"] = redact.String(string(b[:maxRawHTTPBody]), secrets), true
	case len(bytes.TrimSpace(b)) == 0:
	case json.Unmarshal(b, &v) == nil:
		res["body"] = json.RawMessage(redact.JSON(b, secrets))
	default:
		res["body"] = redact.String(string(b), secrets)
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	check := engine.CheckResult{Kind: "expect_status", Status: engine.Passed, Expected: "2xx", Actual: fmt.Sprint(resp.StatusCode), Duration: time.Since(start)}
	if !ok {
		check.Status = engine.Failed
		rec.Checks = []engine.CheckResult{check}
		rec.Detail["body"] = runtime.Clip(redact.String(string(b), secrets), 300)
		return nil, fail(fmt.Errorf("%s %s: HTTP %d", method, u.Path, resp.StatusCode))
	}
	rec.Checks = []engine.CheckResult{check}
	rec.Duration = time.Since(start)
	x.Record(rec)
	return res, nil
}
