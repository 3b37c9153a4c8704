package approval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/audit/audittest"

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

// TestMemoryGate: always and never answer without asking next (counted),
// audited on the memory channel; ask asks next; without next an
// unremembered tool fails with ErrNoApprover; a nil Memory is next.
func TestMemoryGate(t *testing.T) {
	m, err := Open(filepath.Join(t.TempDir(), "approvals.json"))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	answer := false
	next := func(context.Context, runtime.ApprovalRequest) (bool, error) { asked++; return answer, nil }
	ap := m.Gate(next)
	s := &audittest.Sink{}
	ctx := audit.With(context.Background(), s)
	req := func(tool string) runtime.ApprovalRequest { return runtime.ApprovalRequest{Macro: tool} }
	cases := []struct {
		name   string
		set    Decision // stored before the call ("": leave)
		tool   string
		answer bool
		ok     bool
		asked  int    // total after the call
		event  string // the memory's audit event, "" none
	}{
		{"ask: next approves", "", "delete_customer", true, true, 1, ""},
		{"ask: next refuses", "", "delete_customer", false, false, 2, ""},
		{"always: not asked", Always, "delete_customer", false, true, 2, "approval_granted:memory"},
		{"never: not asked", Never, "delete_customer", true, false, 2, "approval_denied:memory"},
		{"other tools still ask", "", "page_click", true, true, 3, ""},
		{"ask again after forgetting", Ask, "delete_customer", true, true, 4, ""},
	}
	for _, tc := range cases {
		if tc.set != "" {
			if err := m.Set(tc.tool, tc.set, "test"); err != nil {
				t.Fatal(err)
			}
		}
		answer = tc.answer
		s.Take()
		ok, err := ap(ctx, req(tc.tool))
		var got string
		events := s.Events()
		if len(events) == 1 {
			got = string(events[0].Kind) + ":" + string(events[0].Channel)
		}
		if err != nil || ok != tc.ok || asked != tc.asked || got != tc.event || len(events) > 1 {
			t.Errorf("%s: ok %v err %v, asked %d, events %v; want ok %v, asked %d, event %q", tc.name, ok, err, asked, events, tc.ok, tc.asked, tc.event)
		}
	}
	if _, err := m.Gate(nil)(ctx, req("other")); !errors.Is(err, runtime.ErrNoApprover) {
		t.Errorf("no next: %v, want ErrNoApprover", err)
	}
	if err := m.Set("other", Always, "test"); err != nil {
		t.Fatal(err)
	}
	if ok, err := m.Gate(nil)(ctx, req("other")); !ok || err != nil {
		t.Errorf("no next, remembered always: %v %v", ok, err)
	}
	var none *Memory
	if none.Gate(nil) != nil || none.Get("x") != Ask {
		t.Error("a nil memory must be its next approver and ask")
	}
	if _, err := ParseDecision("Always"); err != nil {
		t.Error(err)
	}
	if _, err := ParseDecision("yes"); err == nil || !strings.Contains(err.Error(), "ask, always or never") {
		t.Errorf("ParseDecision(yes) = %v", err)
	}
}
