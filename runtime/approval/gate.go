package approval

import (
	"context"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
)

// Gate returns an approver that consults the memory before next: a
// remembered always approves and a remembered never refuses, without
// asking, each audited as granted or denied on the memory channel
// (runtime.AuditedApprover); ask calls next. A nil next means nobody can
// be asked: the approver then fails with runtime.ErrNoApprover (the call
// is approval_required). A nil Memory returns next unchanged.
func (m *Memory) Gate(next runtime.Approver) runtime.Approver {
	if m == nil {
		return next
	}
	remembered := runtime.AuditedApprover(func(_ context.Context, req runtime.ApprovalRequest) (bool, error) {
		return m.Get(req.Macro) == Always, nil
	}, audit.ChannelMemory, "")
	return func(ctx context.Context, req runtime.ApprovalRequest) (bool, error) {
		switch m.Get(req.Macro) {
		case Always, Never:
			return remembered(ctx, req)
		}
		if next == nil {
			return false, runtime.ErrNoApprover
		}
		return next(ctx, req)
	}
}
