package engine

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

func TestActType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, css, text string
		delay           time.Duration
		value           string // JS expression that must equal want
		want            string
		keys            string // keydowns the page counted
		code            Code   // "" for success
	}{
		{"plain input", "#code", "AB-12", 0, `document.getElementById('code').value`, "AB-12", "5", ""},
		{"no clearing", "#note", "yz", 0, `document.getElementById('note').value`, "xyz", "2", ""},
		{"mask formats the text", "#phone", "5551234567", 0, `document.getElementById('phone').value`, "(555) 123-4567", "10", ""},
		{"sectioned field", "#exp", "2027-03-15", 0, `document.getElementById('exp-value').value`, "2027-03-15", "10", ""},
		{"per-key delay", "#code", "abcd", 40 * time.Millisecond, `document.getElementById('code').value`, "abcd", "4", ""},
		{"keys swallowed", "#stubborn", "abc", 0, `document.getElementById('stubborn').value`, "", "3", CodeCheckFailed},
		{"not focusable", "#static", "abc", 0, `document.getElementById('static').textContent`, "Not a field", "0", CodeNotInteractable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_type.html")
			start := time.Now()
			res, err := p.Type(ctx, actEl(t, ctx, p, tc.css), tc.text, tc.delay, ActOptions{})
			took := time.Since(start)
			if tc.code == "" && err != nil {
				t.Fatalf("type: %v (%+v)", err, res)
			}
			if tc.code != "" {
				actWantCode(t, err, tc.code)
			}
			if got := actJS(t, ctx, p, tc.value); got != tc.want {
				t.Errorf("field holds %q, want %q (result %+v)", got, tc.want, res)
			}
			if got := actJS(t, ctx, p, `document.getElementById('keys').textContent`); got != tc.keys {
				t.Errorf("%s keydowns, want %s", got, tc.keys)
			}
			if min := time.Duration(len(tc.text)-1) * tc.delay; took < min {
				t.Errorf("took %s, want at least %s with a %s key delay", took, min, tc.delay)
			}
		})
	}
}

// TestDoTypeNeverRetypes: a type step whose keys reached the page is never
// repeated, even with retries left: a second run would type the text twice.
func TestDoTypeNeverRetypes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, css string
		expect    []Condition
		code      Code
		keys      string
	}{
		{"plain field read back wrong", "#stubborn", nil, CodeCheckFailed, "3"},
		{"post-condition fails after typing", "#code", []Condition{{Kind: vocab.CondValueEquals, Target: &Target{CSS: "#code"}, Value: "nope", Timeout: 300 * time.Millisecond}}, CodeCheckFailed, "3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_type.html")
			res, err := p.Do(ctx, Step{Action: vocab.ActType, Target: &Target{CSS: tc.css}, Value: "abc", Expect: tc.expect, Retry: 3})
			actWantCode(t, err, tc.code)
			if got := actJS(t, ctx, p, `document.getElementById('keys').textContent`); got != tc.keys {
				t.Errorf("%s keydowns, want %s (attempts %+v)", got, tc.keys, res.Attempts)
			}
			if len(res.Attempts) != 1 {
				t.Errorf("%d attempts, want 1: %+v", len(res.Attempts), res.Attempts)
			}
		})
	}
}

func TestDoTypeSensitive(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_type.html")
	var mu sync.Mutex
	var events []Event
	p.SetTracer(TracerFunc(func(e Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}))
	const secret = "s3cr3t-pin"
	res, err := p.Do(ctx, Step{Action: vocab.ActType, Target: &Target{Label: "Code"}, Value: secret, Sensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := actJS(t, ctx, p, `document.getElementById('code').value`); got != secret {
		t.Fatalf("field holds %q", got)
	}
	if res.Act.ValueAfter != redact.Marker {
		t.Errorf("value after not redacted: %q", res.Act.ValueAfter)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if strings.Contains(fmt.Sprint(e.Data), secret) {
			t.Errorf("secret in a %s trace event: %v", e.Kind, e.Data)
		}
	}
}
