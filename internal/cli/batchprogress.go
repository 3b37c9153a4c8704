package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/macrokit/macrokit-go/runtime/batch"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// batchProgress shows a batch's rows as they end: a progress bar on a
// terminal (rows done, failed, rows per minute, ETA; the last failures
// under it), one plain line per row otherwise (a log, a CI job).
type batchProgress struct {
	w      io.Writer
	total  int
	done   int
	failed int
	bar    *progressbar.ProgressBar // nil: plain lines
}

// newBatchProgress picks the bar when w is a terminal.
func newBatchProgress(w io.Writer, total int) *batchProgress {
	p := &batchProgress{w: w, total: total}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && total > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("rows"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("rows"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionFullWidth(),
			progressbar.OptionSetMaxDetailRow(3),
			progressbar.OptionSetRenderBlankState(true),
		)
	}
	return p
}

// row reports one row's end. Not safe for concurrent use: the caller
// holds the batch's lock.
func (p *batchProgress) row(r batchRow) {
	p.done++
	if r.Status != batch.StatusOK {
		p.failed++
	}
	line := fmt.Sprintf("line %d %s: %s%s", r.Line, r.Key, r.Status, errSuffix(r.Error))
	if p.bar == nil {
		fmt.Fprintf(p.w, "[%d/%d] %s\n", p.done, p.total, line)
		return
	}
	if r.Status != batch.StatusOK {
		_ = p.bar.AddDetail(line)
		p.bar.Describe(fmt.Sprintf("rows (%d not ok)", p.failed))
	}
	_ = p.bar.Add(1)
}

// finish ends the bar (its line stays), before the summary is printed.
func (p *batchProgress) finish() {
	if p.bar == nil {
		return
	}
	_ = p.bar.Exit()
	fmt.Fprintln(p.w)
}
