package engine

import (
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestVerifyRequestSucceeded covers request_succeeded, including the toast
// that says "Saved successfully" over a 500.
func TestVerifyRequestSucceeded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		verifyCase
		save   string // argument of save() in the page; "" fires nothing
		method string
	}{
		{verifyCase: verifyCase{name: "success toast over a 500", want: Failed,
			cond:     Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/save", Method: "POST"},
			evidence: map[string]string{"request.status": "500", "request.method": "POST", "request.url": "~/api/verify/save"}, actual: "-> 500"},
			save: "/api/verify/save"},
		{verifyCase: verifyCase{name: "2xx passes", want: Passed,
			cond:     Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/ok", Method: "post"},
			evidence: map[string]string{"request.status": "201"}},
			save: "/api/verify/ok"},
		{verifyCase: verifyCase{name: "exact status", want: Passed,
			cond: Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/save", Status: 500}},
			save: "/api/verify/save"},
		{verifyCase: verifyCase{name: "wrong exact status", want: Failed,
			cond:     Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/ok", Status: 200},
			evidence: map[string]string{"request.status": "201"}},
			save: "/api/verify/ok"},
		{verifyCase: verifyCase{name: "regex url", want: Passed,
			cond: Condition{Kind: vocab.CondRequestSucceeded, URL: `/\/API\/verify\/o[k]$/i`}},
			save: "/api/verify/ok"},
		{verifyCase: verifyCase{name: "redirect followed", want: Passed,
			cond:     Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/redirect", Method: "POST"},
			evidence: map[string]string{"redirects.1.status": "201", "redirects.0.status": "303"}},
			save: "/api/verify/redirect"},
		{verifyCase: verifyCase{name: "wrong method", want: Failed,
			cond:     Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/ok", Method: "DELETE", Timeout: verifyShort},
			evidence: map[string]string{"fired": "~POST " + "http"}, actual: "no matching request fired"},
			save: "/api/verify/ok"},
		{verifyCase: verifyCase{name: "none fired", want: Failed,
			cond:     Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/never", Timeout: verifyShort},
			evidence: map[string]string{"fired": "~/api/verify/ok", "fired_count": "1"}, actual: "no matching request fired"},
			save: "/api/verify/ok"},
		{verifyCase: verifyCase{name: "in flight at timeout", want: Failed,
			cond:     Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/slow", Timeout: verifyShort},
			evidence: map[string]string{"in_flight": "true", "request.done": "false"}, actual: "in flight"},
			save: "/api/verify/slow?ms=1500", method: "GET"},
		{verifyCase: verifyCase{name: "slow request passes", want: Passed,
			cond: Condition{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/slow", Method: "GET"}},
			save: "/api/verify/slow?ms=400", method: "GET"},
		{verifyCase: verifyCase{name: "invalid url regex", want: Unverifiable,
			cond: Condition{Kind: vocab.CondRequestSucceeded, URL: `/(/`}}},
		{verifyCase: verifyCase{name: "no url", want: Unverifiable,
			cond: Condition{Kind: vocab.CondRequestSucceeded, Method: "POST"}}},
	}
	p := verifyOpen(t, "verify_toast.html")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t, 20*time.Second)
			conds := []Condition{tc.cond, {Kind: vocab.CondTextPresent, Text: "Saved successfully", Target: verifyCSS("#toast")}}
			verifyJS(t, p, `() => document.getElementById('toast').textContent = ''`)
			base, err := p.Baseline(ctx, conds)
			if err != nil {
				t.Fatal(err)
			}
			if tc.save != "" {
				verifyJS(t, p, `(u, m) => save(u, m)`, tc.save, tc.method)
			} else {
				conds = conds[:1]
			}
			res := p.Verify(ctx, conds, base)
			tc.check(t, res[0])
			if tc.save != "" && res[1].Status != Passed {
				t.Errorf("toast: %s", verifyDump(res[1]))
			}
			if AllPassed(res) != (tc.want == Passed) {
				t.Errorf("AllPassed = %v", AllPassed(res))
			}
		})
	}
}

// TestVerifyRequestBeforeMark: a request made before the baseline does not
// count as fired during the action.
func TestVerifyRequestBeforeMark(t *testing.T) {
	t.Parallel()
	p := verifyOpen(t, "verify_toast.html")
	ctx := testCtx(t, 20*time.Second)
	cond := []Condition{{Kind: vocab.CondRequestSucceeded, URL: "/api/verify/ok"}}
	verifyJS(t, p, `() => save('/api/verify/ok')`)
	// Wait for the earlier request to finish (no baseline: every request counts).
	if r := p.Verify(ctx, cond, nil); r[0].Status != Passed {
		t.Fatalf("without baseline: %s", verifyDump(r[0]))
	}
	base, err := p.Baseline(ctx, cond)
	if err != nil {
		t.Fatal(err)
	}
	cond[0].Timeout = verifyShort
	r := p.Verify(ctx, cond, base)
	(verifyCase{cond: cond[0], want: Failed, actual: "no matching request fired"}).check(t, r[0])
}

func TestURLMatcher(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pat, url string
		want     bool
	}{
		{"/api/save", "http://x/api/save?id=1", true},
		{"/api/save", "http://x/api/load", false},
		{`/\/api\/s.ve$/`, "http://x/api/save", true},
		{`/\/API\/SAVE/i`, "http://x/api/save", true},
		{`/\/API\/SAVE/`, "http://x/api/save", false},
		{"/a/", "http://x/a/b", true}, // a regex literal: matches "a"
	} {
		m, err := urlMatcher(c.pat)
		if err != nil {
			t.Fatalf("%s: %v", c.pat, err)
		}
		if got := m(c.url); got != c.want {
			t.Errorf("%s ~ %s = %v", c.pat, c.url, got)
		}
	}
	if _, err := urlMatcher("/(/"); err == nil {
		t.Error("invalid regex accepted")
	}
}
