package engine

import (
	"context"
	"time"
)

// scrollProbeReserve is what the probe leaves of the step's time for the
// attempt that follows it.
const scrollProbeReserve = 1500 * time.Millisecond

// scrollProbeMax bounds one probe when the step allows more.
const scrollProbeMax = 15 * time.Second

// scrollProbe is the not_found healing strategy for lists that render a
// row only once it is scrolled to (virtualized lists, lazy loading): in
// one in-page evaluation (js/47_scrollprobe.js) it scrolls the scrollable
// containers — those holding repeated rows first, then the page, then the
// others by size — a page at a time, down from where each is and then
// from its top back to there, re-matching t after each page renders, and
// stops at the first match, leaving it rendered for the retry. It reports
// whether t now matches (false without a target); the budget is the
// step's remaining time less a reserve for acting.
func (p *Page) scrollProbe(ctx context.Context, t *Target) (bool, error) {
	if t == nil {
		return false, nil
	}
	tt := *t
	tt.Nth, tt.Last = nil, false
	if err := groundCheckTarget(&tt); err != nil {
		return false, err
	}
	budget := scrollProbeMax
	if dl, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(dl)-scrollProbeReserve)
	}
	if budget <= 0 {
		return false, nil
	}
	var out struct {
		Found bool `json:"found"`
		Steps int  `json:"steps"`
	}
	if err := p.call(ctx, &out, mkScrollProbe, tt, budget.Milliseconds()); err != nil {
		return false, err
	}
	return out.Found, nil
}
