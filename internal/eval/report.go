package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText prints a report for people: the headline (and the upstream
// figure for a replay), subtotals, bail-outs, salvages, questions asked,
// wrong dispatches, latency, the confusion matrix, and every task that
// changed verdict against upstream.
func WriteText(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "model %s, %d tasks\n", rep.Model, rep.Tasks)
	fmt.Fprintf(w, "score %.2f%% (%.1f / %.0f points; upstream rule)", rep.Percent, rep.Points, rep.Max)
	if rep.HasUpstr {
		fmt.Fprintf(w, "; upstream recorded %.2f%%", rep.Upstream)
	}
	fmt.Fprintf(w, "; dispatched-only %.2f%%\n", rep.Strict)
	fmt.Fprintf(w, "bail-outs %d%s; salvaged %d; escalated %d; halted %d; asked %d (naming the expected macro %d)\n", sum(rep.BailOuts), codes(rep.BailOuts),
		rep.Salvaged, rep.Escalated, rep.Halted, rep.Asked, rep.AskedNamedExpected)
	fmt.Fprintf(w, "wrong dispatches %d (read %d, act %d, dangerous %d); of them by salvage: act %d, dangerous %d\n",
		rep.WrongDispatches, rep.WrongByRisk["read"], rep.WrongByRisk["act"], rep.WrongByRisk["dangerous"],
		rep.WrongBySalvage["act"], rep.WrongBySalvage["dangerous"])
	if c := rep.WithConfirmation; c != nil {
		fmt.Fprintf(w, "with confirmation: score %.2f%% (%d recovered act call(s) confirmed); wrong dispatches %d (read %d, act %d, dangerous %d)\n",
			c.Percent, c.Confirmed, c.WrongDispatches, c.WrongByRisk["read"], c.WrongByRisk["act"], c.WrongByRisk["dangerous"])
	}
	fmt.Fprintf(w, "consequential resets %d%s; unasked consequential values that ran %d\n", rep.ConsequentialResets, codes(rep.ResetsByParam), rep.UnaskedRan)
	fmt.Fprintf(w, "mean model latency %s; mean routing overhead %s\n", rep.MeanLatency.Round(time.Millisecond), rep.MeanOverhead.Round(time.Microsecond))

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nbucket\ttasks\tpoints\t%")
	for _, k := range sortedKeys(rep.ByBucket) {
		g := rep.ByBucket[k]
		fmt.Fprintf(tw, "%s\t%d\t%.1f/%.0f\t%.1f\n", k, g.Count, g.Points, g.Max, g.Percent)
	}
	fmt.Fprintln(tw, "\ndifficulty\ttasks\tpoints\t%")
	for _, k := range sortedKeys(rep.ByDiff) {
		g := rep.ByDiff[k]
		fmt.Fprintf(tw, "%s\t%d\t%.1f/%.0f\t%.1f\n", k, g.Count, g.Points, g.Max, g.Percent)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nconfusion (expected -> routed: count)")
	for _, exp := range sortedKeys(rep.Confusion) {
		row := rep.Confusion[exp]
		var cells []string
		for _, got := range sortedKeys(row) {
			cells = append(cells, fmt.Sprintf("%s: %d", got, row[got]))
		}
		fmt.Fprintf(w, "  %s -> %s\n", exp, strings.Join(cells, ", "))
	}

	var changed []string
	for _, r := range rep.Results {
		if r.Upstream == nil || r.Upstream.Total() == r.Score.Total() {
			continue
		}
		changed = append(changed, fmt.Sprintf("  %s %s -> %s (%+.1f) routed=%s decision=%s %s", r.Task.ID, r.Upstream.Verdict, r.Score.Verdict,
			r.Score.Total()-r.Upstream.Total(), orNone(r.Routed), r.Decision, strings.Join(r.BailOuts, ",")))
	}
	if len(changed) > 0 {
		fmt.Fprintf(w, "\nchanged against upstream (%d)\n%s\n", len(changed), strings.Join(changed, "\n"))
	}
	if len(rep.Changes) > 0 {
		fmt.Fprintf(w, "\nchanged against the baseline (%d)\n", len(rep.Changes))
		for _, c := range rep.Changes {
			fmt.Fprintf(w, "  %s %s -> %s (%+.1f) routed=%s decision=%s\n", c.ID, c.Before, c.After, c.Delta, c.Routed, c.Decision)
		}
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func codes(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
