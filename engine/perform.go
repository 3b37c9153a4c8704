package engine

import (
	"context"
	"time"
)

// perform runs the step's action on the grounded element (nil for actions
// without a target).
func (p *Page) perform(ctx context.Context, step Step, el *Element, ch Channel) (*ActResult, error) {
	opt := ActOptions{Channel: ch, Sensitive: step.Sensitive}
	switch step.Action {
	case ActGoto:
		start := time.Now()
		if err := p.Goto(ctx, step.URL); err != nil {
			return nil, err
		}
		u, _ := p.URL(ctx)
		return &ActResult{Action: ActGoto, Navigated: true, URL: u, Duration: time.Since(start)}, nil
	case ActWait:
		return &ActResult{Action: ActWait}, nil
	case ActClick:
		return p.Click(ctx, el, opt)
	case ActHover:
		return p.Hover(ctx, el, opt)
	case ActFill:
		return p.Fill(ctx, el, step.Value, opt)
	case ActSelect:
		return p.Select(ctx, el, step.Options, opt)
	case ActCheck:
		return p.Check(ctx, el, opt)
	case ActUncheck:
		return p.Uncheck(ctx, el, opt)
	case ActPress:
		return p.Press(ctx, el, step.Key, opt)
	case ActUpload:
		return p.Upload(ctx, el, step.Files, opt)
	case ActScroll:
		return p.Scroll(ctx, el, step.DeltaY, opt)
	}
	return nil, errorf(CodeInvalid, "unknown action %q", step.Action)
}
