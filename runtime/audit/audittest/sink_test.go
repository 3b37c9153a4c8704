package audittest

import (
	"context"
	"errors"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/audit"
)

func TestSink(t *testing.T) {
	s := &Sink{FailOn: map[audit.Kind]bool{audit.DangerousRun: true}}
	ctx := audit.With(context.Background(), s)
	if err := audit.Record(ctx, audit.Event{Kind: audit.ApprovalGranted}); err != nil {
		t.Fatal(err)
	}
	if err := audit.Record(ctx, audit.Event{Kind: audit.DangerousRun}); !errors.Is(err, ErrFull) {
		t.Fatalf("FailOn kind: %v, want ErrFull", err)
	}
	if es := s.Events(); len(es) != 1 || es[0].Kind != audit.ApprovalGranted {
		t.Fatalf("Events = %+v", es)
	}
	if es := s.Take(); len(es) != 1 || len(s.Events()) != 0 {
		t.Fatalf("Take = %+v, then %+v", es, s.Events())
	}
}
