package runtime

import (
	"context"
	"encoding/base32"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// TestTOTPLoginOnTheDemoSite signs in to the demo site's two-step login
// in Chromium with a totp step: the right secret opens a session, a wrong
// one fails at the code with the page's evidence, and neither the secret
// nor a code reaches the outcome or the session log.
func TestTOTPLoginOnTheDemoSite(t *testing.T) {
	b := launch(t)
	secret := base32.StdEncoding.EncodeToString([]byte("demo-totp-seed-0123456789"))
	wrong := base32.StdEncoding.EncodeToString([]byte("not-the-seed-of-this-user"))
	site := demosite.New(demosite.Options{RequireLogin: true, TOTP: map[string]string{demosite.DefaultUsername: secret}})
	hs := httptest.NewServer(site.Handler())
	defer hs.Close()
	login := &Macro{Name: "login_2fa", Risk: RiskAct, Secrets: []string{"password", "seed"},
		Handler: func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
			var p struct{ Password, Seed string }
			_ = json.Unmarshal(args, &p)
			steps := []engine.Step{
				{Action: vocab.ActGoto, URL: hs.URL + "/login"},
				{Action: vocab.ActFill, Target: &engine.Target{Label: "Username"}, Value: demosite.DefaultUsername},
				{Action: vocab.ActFill, Target: &engine.Target{Label: "Password"}, Value: p.Password, Sensitive: true},
				{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Sign in"}, Expect: []engine.Condition{{Kind: vocab.CondURLMatches, Pattern: "/login/verify"}}},
			}
			for i, s := range steps {
				if err := x.Do(ctx, "steps["+string(rune('0'+i))+"]", s); err != nil {
					return nil, err
				}
			}
			code, err := x.TOTP(ctx, "steps[4]", p.Seed)
			if err != nil {
				return nil, err
			}
			if err := x.Do(ctx, "steps[5]", engine.Step{Action: vocab.ActFill, Target: &engine.Target{Label: "One-time code"}, Value: code, Sensitive: true}); err != nil {
				return nil, err
			}
			return nil, x.Do(ctx, "steps[6]", engine.Step{Action: vocab.ActClick, Target: &engine.Target{Role: "button", Name: "Verify"},
				Expect: []engine.Condition{{Kind: vocab.CondElementExists, Target: &engine.Target{TestID: "current-user"}}}})
		}}
	reg, err := NewRegistry(login)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, seed string
		ok         bool
	}{
		{"the right secret", secret, true},
		{"a wrong secret", wrong, false},
		{"not a secret at all", "not base32!", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, err := sessionlog.Open(t.TempDir(), "totp")
			if err != nil {
				t.Fatal(err)
			}
			d := &Dispatcher{Registry: reg, Pages: ContextPages(b), Log: log}
			before := site.Logins()
			args, _ := json.Marshal(map[string]string{"password": demosite.DefaultPassword, "seed": tt.seed})
			out := d.Dispatch(context.Background(), Call{ID: "c", Name: "login_2fa", Args: args})
			log.Close()
			if out.OK != tt.ok {
				t.Fatalf("ok = %v, want %v: %+v", out.OK, tt.ok, out.Error)
			}
			if got := site.Logins() - before; got != map[bool]int{true: 1, false: 0}[tt.ok] {
				t.Errorf("sessions started = %d", got)
			}
			if !tt.ok && (out.Error.Step == nil || len(out.Steps) < 5) {
				t.Errorf("a failed second factor carries no evidence: %+v", out.Error)
			}
			ev, _ := json.Marshal(out)
			logged, _ := os.ReadFile(log.Path())
			for _, s := range []string{tt.seed, demosite.DefaultPassword} {
				if strings.Contains(string(ev), s) || strings.Contains(string(logged), s) {
					t.Errorf("the outcome or the log holds a secret")
				}
			}
			if tt.name == "a wrong secret" && (out.Error.Step.Path != "steps[6]" || out.Error.Step.Checks[0].Kind != vocab.CondElementExists) {
				t.Errorf("a wrong code fails elsewhere than at Verify's check: %+v", out.Error.Step)
			}
			if tt.name == "not a secret at all" && out.Error.Step.Kind != "totp" {
				t.Errorf("a bad secret fails at %+v", out.Error.Step)
			}
		})
	}
}
