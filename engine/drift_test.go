package engine

import (
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestHealByFingerprint: fingerprints taken on the page as a macro was
// written heal the drifted page's renamed and moved controls only when the
// re-found element is unmistakable; the click is counted on the page, so a
// refused heal is seen to act on nothing.
func TestHealByFingerprint(t *testing.T) {
	t.Parallel()
	p := newTestPage(t)
	ctx := testCtx(t, 20*time.Second)
	if err := p.Goto(ctx, fixtureURL("drift.html?v=orig")); err != nil {
		t.Fatal(err)
	}
	btnT := Target{Role: "button", Name: "Add customer"}
	btn, err := p.Resolve(ctx, btnT)
	if err != nil {
		t.Fatal(err)
	}
	emailT := Target{Label: "Email"}
	email, err := p.Resolve(ctx, emailT)
	if err != nil {
		t.Fatal(err)
	}
	added := []Condition{{Kind: vocab.CondTextPresent, Text: "customer added", Timeout: time.Second}}
	cases := []struct {
		name     string
		v        string
		step     Step
		heal     bool   // a heal is in the result
		pass     bool   // the step passed
		code     Code   // the error's code when it failed
		proposed string // the proposed target
		clicks   int
	}{
		{name: "renamed and moved button", v: "rename", heal: true, pass: true, clicks: 1, proposed: `{role="button" name="Create customer"}`,
			step: Step{Action: vocab.ActClick, Target: &btnT, Remembered: &btn.Fingerprint, Expect: added}},
		{name: "renamed label", v: "rename", heal: true, pass: true, proposed: `{label="E-mail address"}`,
			step: Step{Action: vocab.ActFill, Target: &emailT, Value: "ada@example.com", Remembered: &email.Fingerprint}},
		{name: "no fingerprint: no heal", v: "rename", code: CodeNotFound,
			step: Step{Action: vocab.ActClick, Target: &btnT, Expect: added}},
		{name: "two look-alikes tie", v: "twins", code: CodeAmbiguous,
			step: Step{Action: vocab.ActClick, Target: &btnT, Remembered: &btn.Fingerprint, Expect: added}},
		{name: "renamed with no id left", v: "stranger", code: CodeNotFound,
			step: Step{Action: vocab.ActClick, Target: &btnT, Remembered: &btn.Fingerprint, Expect: added}},
		{name: "decoy fails its check", v: "decoy", heal: true, code: CodeCheckFailed, clicks: 1, proposed: `{role="button" name="Import customers"}`,
			step: Step{Action: vocab.ActClick, Target: &btnT, Remembered: &btn.Fingerprint, Expect: added}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTestPage(t)
			ctx := testCtx(t, 20*time.Second)
			if err := p.Goto(ctx, fixtureURL("drift.html?v="+tc.v)); err != nil {
				t.Fatal(err)
			}
			res, err := p.Do(ctx, tc.step)
			if tc.pass != (err == nil) {
				t.Fatalf("err = %v, want pass=%v (strategies %s)", err, tc.pass, strategies(res))
			}
			if !tc.pass && !IsCode(err, tc.code) {
				t.Fatalf("err = %v, want %s", err, tc.code)
			}
			if tc.heal != (res.Heal != nil) {
				t.Fatalf("heal = %+v, want %v (strategies %s, err %v)", res.Heal, tc.heal, strategies(res), err)
			}
			if h := res.Heal; h != nil {
				t.Logf("confidence %.3f, runner-up %.3f", h.Confidence, h.RunnerUp)
				if h.Confidence < HealThreshold || h.Confidence-h.RunnerUp < HealMargin || h.Cause != CodeNotFound || h.Target != *tc.step.Target {
					t.Errorf("heal %+v", h)
				}
				if h.Proposed == nil || h.Proposed.String() != tc.proposed {
					t.Errorf("proposed %v (%s), want %s", h.Proposed, h.ProposeNote, tc.proposed)
				}
			}
			var clicks int
			if err := p.evalJSON(ctx, &clicks, `() => window.clicks`); err != nil {
				t.Fatal(err)
			}
			if clicks != tc.clicks {
				t.Errorf("%d click(s) reached the page, want %d", clicks, tc.clicks)
			}
		})
	}
}
