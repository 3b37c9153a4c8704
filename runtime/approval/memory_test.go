package approval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
)

// TestMemoryPersists: decisions survive a reopen, ask forgets, reset
// empties, and no temporary file is left beside the memory.
func TestMemoryPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".macrokit", "approvals.json")
	m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Get("delete_customer") != Ask {
		t.Fatal("an empty memory must ask")
	}
	steps := []struct {
		tool string
		d    Decision
		want map[string]Decision // after reopening
	}{
		{"delete_customer", Always, map[string]Decision{"delete_customer": Always}},
		{"page_click", Never, map[string]Decision{"delete_customer": Always, "page_click": Never}},
		{"delete_customer", Never, map[string]Decision{"delete_customer": Never, "page_click": Never}},
		{"page_click", Ask, map[string]Decision{"delete_customer": Never}},
	}
	for i, st := range steps {
		if err := m.Set(st.tool, st.d, "test"); err != nil {
			t.Fatal(err)
		}
		re, err := Open(path)
		if err != nil {
			t.Fatalf("step %d: reopen: %v", i, err)
		}
		got := map[string]Decision{}
		for _, e := range re.List() {
			got[e.Tool] = e.Decision
		}
		if len(got) != len(st.want) {
			t.Fatalf("step %d: %v, want %v", i, got, st.want)
		}
		for k, v := range st.want {
			if got[k] != v || re.Get(k) != v {
				t.Errorf("step %d: %s = %s, want %s", i, k, got[k], v)
			}
		}
	}
	if err := m.Reset(); err != nil {
		t.Fatal(err)
	}
	if re, err := Open(path); err != nil || len(re.List()) != 0 {
		t.Fatalf("after reset: %v, %v", err, re)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("files beside the memory: %v", ents)
	}
	if err := m.Set("x", "sometimes", "test"); err == nil {
		t.Error("a bad decision was stored")
	}
}

func TestOpenRejectsBadFiles(t *testing.T) {
	cases := map[string]string{
		"not json":         "always",
		"unknown key":      `{"version":1,"tools":[],"extra":1}`,
		"bad decision":     `{"version":1,"tools":[{"tool":"x","decision":"maybe"}]}`,
		"ask stored":       `{"version":1,"tools":[{"tool":"x","decision":"ask"}]}`,
		"no tool":          `{"version":1,"tools":[{"decision":"always"}]}`,
		"wrong version":    `{"version":2,"tools":[]}`,
		"trailing garbage": `{"version":1,"tools":[]} {}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "approvals.json")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(path); !errors.Is(err, ErrFormat) {
				t.Errorf("Open = %v, want ErrFormat", err)
			}
		})
	}
}

type sink struct {
	mu     sync.Mutex
	events []audit.Event
}

func (s *sink) Append(_ context.Context, e audit.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
	return nil
}

// TestMemoryApprover: always and never answer without asking (counted),
// audited on the memory channel; ask asks, and an answer to remember is
// stored so the next call is not asked; without an asker an unremembered
// tool fails with ErrNoApprover.
func TestMemoryApprover(t *testing.T) {
	m, err := Open(filepath.Join(t.TempDir(), "approvals.json"))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	var answer Answer
	ask := func(context.Context, runtime.ApprovalRequest) (Answer, error) { asked++; return answer, nil }
	ap := m.Approver(ask, "terminal")
	s := &sink{}
	ctx := audit.With(context.Background(), s)
	req := func(tool string) runtime.ApprovalRequest { return runtime.ApprovalRequest{Macro: tool} }
	cases := []struct {
		name   string
		tool   string
		answer Answer
		ok     bool
		asked  int // total after the call
		events int // total audit events after the call
	}{
		{"ask, approve once", "delete_customer", Answer{Approve: true}, true, 1, 0},
		{"still asks", "delete_customer", Answer{Approve: false}, false, 2, 0},
		{"approve, always from now", "delete_customer", Answer{Approve: true, Remember: Always}, true, 3, 0},
		{"remembered always: not asked", "delete_customer", Answer{}, true, 3, 1},
		{"refuse, never from now", "page_click", Answer{Remember: Never}, false, 4, 1},
		{"remembered never: not asked", "page_click", Answer{Approve: true}, false, 4, 2},
	}
	for _, tc := range cases {
		answer = tc.answer
		ok, err := ap(ctx, req(tc.tool))
		if err != nil || ok != tc.ok || asked != tc.asked || len(s.events) != tc.events {
			t.Fatalf("%s: ok %v err %v, asked %d, events %d; want ok %v, asked %d, events %d", tc.name, ok, err, asked, len(s.events), tc.ok, tc.asked, tc.events)
		}
	}
	if e := s.events[0]; e.Kind != audit.ApprovalGranted || e.Channel != audit.ChannelMemory || e.Macro != "delete_customer" {
		t.Errorf("event %+v", e)
	}
	if e := s.events[1]; e.Kind != audit.ApprovalDenied || e.Channel != audit.ChannelMemory || e.Macro != "page_click" {
		t.Errorf("event %+v", e)
	}
	// A tracked context: the channel is noted, the tracker audits.
	tctx, ch := Track(ctx)
	if ok, _ := ap(tctx, req("delete_customer")); !ok {
		t.Fatal("remembered always refused")
	}
	if c, _ := ch.Get(); c != audit.ChannelMemory || len(s.events) != 2 {
		t.Errorf("tracked: channel %q, %d events", c, len(s.events))
	}
	// Nobody to ask.
	if _, err := m.Approver(nil, "")(ctx, req("other")); !errors.Is(err, runtime.ErrNoApprover) {
		t.Errorf("no asker: %v, want ErrNoApprover", err)
	}
	if ok, err := m.Approver(nil, "")(ctx, req("delete_customer")); !ok || err != nil {
		t.Errorf("no asker, remembered always: %v %v", ok, err)
	}
	// A nil memory only asks.
	var none *Memory
	answer = Answer{Remember: Always}
	if ok, _ := none.Approver(ask, "")(ctx, req("delete_customer")); ok || asked != 5 {
		t.Errorf("nil memory: ok %v, asked %d", ok, asked)
	}
	if _, err := ParseDecision("Always"); err != nil {
		t.Error(err)
	}
	if _, err := ParseDecision("yes"); err == nil || !strings.Contains(err.Error(), "ask, always or never") {
		t.Errorf("ParseDecision(yes) = %v", err)
	}
}
