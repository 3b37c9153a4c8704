package mcpclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
)

// TestStartFailureRedactsStderr: a stdio server that dies at start and
// prints its configuration is reported unavailable with its stderr tail,
// minus the value it was given and anything that reads as a credential.
func TestStartFailureRedactsStderr(t *testing.T) {
	const token = "s3cr3t-Token-9f2a"
	p := &Pool{
		Servers: map[string]Server{"bad": {Name: "bad",
			Command: []string{"/bin/sh", "-c", `echo "starting with TICKETS_TOKEN=$TICKETS_TOKEN" >&2; echo "db password: Hunter2-xyz" >&2; exit 3`},
			Env:     map[string]Value{"TICKETS_TOKEN": {Env: "TEST_TOKEN"}}}},
		Getenv: func(k string) string {
			if k == "TEST_TOKEN" {
				return token
			}
			return ""
		},
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := p.Tool(ctx, "bad", "anything")
	var me *runtime.MCPError
	if !errors.As(err, &me) || me.Code != runtime.MCPUnavailable {
		t.Fatalf("err %v, want an %s MCPError", err, runtime.MCPUnavailable)
	}
	msg := err.Error()
	if !strings.Contains(msg, "its stderr: ") || !strings.Contains(msg, "starting with TICKETS_TOKEN=") {
		t.Errorf("no stderr tail in %q", msg)
	}
	for _, secret := range []string{token, "Hunter2-xyz"} {
		if strings.Contains(msg, secret) {
			t.Errorf("the error shows %q: %s", secret, msg)
		}
	}
}
