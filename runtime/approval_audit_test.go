package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/audit/audittest"

	"github.com/macrokit/macrokit-go/runtime/audit"
)

// summary renders the events as "kind/channel/who" words.
func summary(sink *audittest.Sink) string {
	var parts []string
	for _, e := range sink.Events() {
		s := string(e.Kind)
		if e.Channel != "" || e.Who != "" {
			s += "/" + string(e.Channel) + "/" + e.Who
		}
		if e.Secret != "" {
			s += ":" + e.Secret
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestDangerousRunAudited(t *testing.T) {
	declined := func(context.Context, ApprovalRequest) (bool, error) { return false, nil }
	cases := []struct {
		name     string
		approver Approver
		failOn   []audit.Kind
		code     ErrorCode // "" : the call ran
		events   string
	}{
		{name: "--yes", approver: AuditedApprover(AlwaysApprove, audit.ChannelYes, "alice"),
			events: "approval_granted/yes/alice dangerous_run/yes/alice"},
		{name: "declined at the terminal", approver: AuditedApprover(declined, audit.ChannelTerminal, "bob"), code: CodeApprovalDenied,
			events: "approval_asked/terminal/bob approval_denied/terminal/bob"},
		{name: "nobody to ask", code: CodeApprovalRequired, events: "approval_denied"},
		{name: "an approver that does not say its channel", approver: AlwaysApprove, events: "approval_granted dangerous_run"},
		{name: "the ask cannot be recorded", approver: AuditedApprover(AlwaysApprove, audit.ChannelTerminal, "bob"), failOn: []audit.Kind{audit.ApprovalAsked},
			code: CodeAuditFailed, events: ""},
		{name: "the grant cannot be recorded", approver: AuditedApprover(AlwaysApprove, audit.ChannelYes, "alice"), failOn: []audit.Kind{audit.ApprovalGranted},
			code: CodeAuditFailed, events: ""},
		{name: "the run cannot be recorded", approver: AuditedApprover(AlwaysApprove, audit.ChannelYes, "alice"), failOn: []audit.Kind{audit.DangerousRun},
			code: CodeAuditFailed, events: "approval_granted/yes/alice"},
		{name: "unaudited grant cannot be recorded", approver: AlwaysApprove, failOn: []audit.Kind{audit.ApprovalGranted}, code: CodeAuditFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ran := 0
			wipe := &Macro{Name: "wipe", Intent: "delete everything", Risk: RiskDangerous,
				Handler: func(context.Context, *Exec, json.RawMessage) (any, error) { ran++; return true, nil }}
			reg, err := NewRegistry(wipe)
			if err != nil {
				t.Fatal(err)
			}
			sink := &audittest.Sink{FailOn: map[audit.Kind]bool{}}
			for _, k := range tc.failOn {
				sink.FailOn[k] = true
			}
			d := &Dispatcher{Registry: reg, Approver: tc.approver}
			out := d.Dispatch(audit.With(context.Background(), sink), Call{ID: "1", Name: "wipe"})
			wantRan := 0
			if tc.code == "" {
				wantRan = 1
				if !out.OK {
					t.Fatalf("outcome %+v", out.Error)
				}
			} else if out.Error == nil || out.Error.Code != tc.code {
				t.Fatalf("outcome %+v, want %s", out.Error, tc.code)
			}
			if ran != wantRan {
				t.Errorf("the handler ran %d times, want %d", ran, wantRan)
			}
			if got := summary(sink); got != tc.events {
				t.Errorf("events %q, want %q", got, tc.events)
			}
		})
	}
}

// TestSecretReadAndSiteBlockAudited: a credential-named variable's read is
// recorded once per call by name (never its value); a plain one is not; a
// read the log cannot record fails the call before any step; a site
// block is recorded with the URL.
func TestSecretReadAndSiteBlockAudited(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer srv.Close()
	env := map[string]string{"API_URL": srv.URL, "API_TOKEN": "tok-123", "OTHER_URL": "https://elsewhere.example/x?key=tok-123"}
	call := &Macro{Name: "call_api", Intent: "call the API", Risk: RiskRead,
		Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
			base, err := x.RequireEnv("API_URL")
			if err != nil {
				return nil, err
			}
			tok, err := x.RequireEnv("API_TOKEN")
			if err != nil {
				return nil, err
			}
			_ = x.Env("API_TOKEN") // a second read of the same name in the call
			_, err = x.HTTP(ctx, "steps[0]", HTTPRequest{URL: base + "/ok", Headers: map[string]string{"Authorization": "Bearer " + tok}})
			return nil, err
		}}
	blocked := &Macro{Name: "leave", Intent: "go elsewhere", Risk: RiskRead,
		Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
			_, err := x.HTTP(ctx, "steps[0]", HTTPRequest{URL: x.Env("OTHER_URL")})
			return nil, err
		}}
	reg, err := NewRegistry(call, blocked)
	if err != nil {
		t.Fatal(err)
	}
	sites, err := NewSitePolicy([]string{srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		macro  string
		failOn audit.Kind
		code   ErrorCode
		hits   int
		events string
	}{
		{macro: "call_api", hits: 1, events: "secret_read:API_TOKEN"},
		{macro: "call_api", failOn: audit.SecretRead, code: CodeAuditFailed},
		{macro: "leave", code: CodeSiteNotAllowed, events: "site_blocked"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s fail %s", tc.macro, tc.failOn), func(t *testing.T) {
			hits = 0
			sink := &audittest.Sink{FailOn: map[audit.Kind]bool{tc.failOn: true}}
			d := &Dispatcher{Registry: reg, Getenv: func(k string) string { return env[k] }, Sites: sites}
			out := d.Dispatch(audit.With(context.Background(), sink), Call{ID: "1", Name: tc.macro})
			if (tc.code == "") != (out.Error == nil) || (out.Error != nil && out.Error.Code != tc.code) {
				t.Fatalf("outcome %+v, want %q", out.Error, tc.code)
			}
			if hits != tc.hits {
				t.Errorf("%d requests, want %d", hits, tc.hits)
			}
			if got := summary(sink); got != tc.events {
				t.Errorf("events %q, want %q", got, tc.events)
			}
			for _, e := range sink.Events() {
				if b, _ := json.Marshal(e); strings.Contains(string(b), "tok-123") {
					t.Errorf("an audit event carries the secret: %s", b)
				}
				if e.Macro != tc.macro {
					t.Errorf("event macro %q, want %q", e.Macro, tc.macro)
				}
				if e.Kind == audit.SiteBlocked && !strings.HasPrefix(e.Target, "https://elsewhere.example/x") {
					t.Errorf("site_blocked target %q", e.Target)
				}
			}
		})
	}
}

func TestSecretEnvName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "API_KEY": true, "DB_PASSWORD": true, "ACCESSTOKEN": true, "OPENAI_API_KEY": true, "SMTP_PASS": true,
		"DEMO_URL": false, "GITHUB_API_URL": false, "MONKEY_COUNT": false, "PATH": false, "KEYBOARD": false,
	} {
		if got := SecretEnvName(name); got != want {
			t.Errorf("SecretEnvName(%q) = %v, want %v", name, got, want)
		}
	}
}
