package audit

import (
	"context"
	"sync"
	"testing"
)

type memSink struct {
	mu sync.Mutex
	es []Event
}

func (m *memSink) Append(_ context.Context, e Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.es = append(m.es, e)
	return nil
}

func TestRecord(t *testing.T) {
	if err := Record(context.Background(), Event{Kind: DangerousRun}); err != nil {
		t.Fatalf("no sink: %v", err)
	}
	s := &memSink{}
	ctx := With(context.Background(), s)
	if err := Record(ctx, Event{Kind: ApprovalGranted, Macro: "wipe", Channel: ChannelYes}); err != nil {
		t.Fatal(err)
	}
	if len(s.es) != 1 || s.es[0].Time.IsZero() || s.es[0].Macro != "wipe" {
		t.Fatalf("events = %+v", s.es)
	}
}

func TestWithNilSilences(t *testing.T) {
	s := &memSink{}
	ctx := With(With(context.Background(), s), nil)
	if err := Record(ctx, Event{Kind: DangerousRun}); err != nil || len(s.es) != 0 {
		t.Fatalf("a nil sink recorded: %v %+v", err, s.es)
	}
}
