package audit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/macrokit/macrokit-go/runtime/audit"
)

// Example: open a log, record through the context, verify it.
func Example() {
	dir, _ := os.MkdirTemp("", "audit-example-")
	defer os.RemoveAll(dir)
	log, err := audit.Open(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := audit.With(context.Background(), log)
	t := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	_ = audit.Record(ctx, audit.Event{Time: t, Kind: audit.ApprovalGranted, Macro: "wipe", Channel: audit.ChannelYes, Who: "alice"})
	_ = audit.Record(ctx, audit.Event{Time: t, Kind: audit.DangerousRun, Macro: "wipe", Channel: audit.ChannelYes, Who: "alice"})
	log.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	fmt.Print(string(b))
	f, _ := os.Open(filepath.Join(dir, "audit.jsonl"))
	defer f.Close()
	rep, err := audit.Verify(f)
	fmt.Println(rep.Records, rep.Head.Seq, err)
	// Output:
	// {"seq":1,"prev":"0000000000000000000000000000000000000000000000000000000000000000","time":"2026-12-02T08:00:00Z","kind":"approval_granted","macro":"wipe","channel":"yes","who":"alice"}
	// {"seq":2,"prev":"9ad77b958fbb054a2c7e75a30a6c4b509a59e64eedf0df8827fddfb4360ddfa7","time":"2026-12-02T08:00:00Z","kind":"dangerous_run","macro":"wipe","channel":"yes","who":"alice"}
	// 2 2 <nil>
}
