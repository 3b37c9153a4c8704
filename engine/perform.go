package engine

import (
	"context"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// perform runs the step's action on the grounded element (nil for actions
// without a target).
func (p *Page) perform(ctx context.Context, step Step, el *Element, ch Channel) (*ActResult, error) {
	opt := ActOptions{Channel: ch, Sensitive: step.Sensitive}
	switch step.Action {
	case vocab.ActGoto:
		start := time.Now()
		if err := p.Goto(ctx, step.URL); err != nil {
			return nil, err
		}
		u, _ := p.URL(ctx)
		return &ActResult{Action: vocab.ActGoto, Navigated: true, URL: u, Duration: time.Since(start)}, nil
	case vocab.ActWait:
		return &ActResult{Action: vocab.ActWait}, nil
	case vocab.ActClick:
		return p.Click(ctx, el, opt)
	case vocab.ActHover:
		return p.Hover(ctx, el, opt)
	case vocab.ActFill:
		return p.Fill(ctx, el, step.Value, opt)
	case vocab.ActType:
		return p.Type(ctx, el, step.Value, step.KeyDelay, opt)
	case vocab.ActSelect:
		if len(step.Path) > 0 {
			return p.SelectPath(ctx, el, step.Path, opt)
		}
		return p.Select(ctx, el, step.Options, opt)
	case vocab.ActCheck:
		return p.Check(ctx, el, opt)
	case vocab.ActUncheck:
		return p.Uncheck(ctx, el, opt)
	case vocab.ActPress:
		return p.Press(ctx, el, step.Key, opt)
	case vocab.ActUpload:
		return p.Upload(ctx, el, step.Files, opt)
	case vocab.ActScroll:
		return p.Scroll(ctx, el, step.DeltaY, opt)
	}
	return nil, errorf(CodeInvalid, "unknown action %q", step.Action)
}
