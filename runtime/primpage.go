package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Page is a primitive's typed handle on its call's page: the page the
// spec's steps use (opened on first use through Exec.Page, so a primitive
// that reads nothing opens nothing), with the call's secrets registered
// for redaction. Every action and read it performs is a step of the call,
// recorded as evidence under the primitive step's path — steps[2].page[0],
// steps[2].page[1], ... — exactly as a spec's page step is: its checks, a
// failure's diagnosis, screenshots under --screenshots, a click counting
// as an effect. A primitive that takes a page declares it as its second
// parameter (func(context.Context, *runtime.Page, Args) ...), and
// `macrokit generate` registers it with TypedPagePrimitive.
//
// A Page is valid while its primitive runs; it is safe for concurrent use.
type Page struct {
	x    *Exec
	path string

	mu sync.Mutex
	n  int
}

type pageKey struct{}

// withPage puts the handle for the primitive step at path on ctx.
func (x *Exec) withPage(ctx context.Context, path string) context.Context {
	return context.WithValue(ctx, pageKey{}, &Page{x: x, path: path})
}

// PageFrom returns the page handle Exec.Primitive puts on a primitive's
// context.
func PageFrom(ctx context.Context) (*Page, bool) {
	p, ok := ctx.Value(pageKey{}).(*Page)
	return p, ok
}

// errNoPage is what a page primitive called outside a macro step gets.
var errNoPage = errors.New("this primitive takes the call's page, but its context has none (call it from a macro step, through Exec.Primitive)")

// next is the path of the handle's next step.
func (p *Page) next() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	return fmt.Sprintf("%s.page[%d]", p.path, p.n-1)
}

// Do runs one engine step (an action with the post-conditions that prove
// it worked) in the call's main tab. A failed step is a step_failed
// *CallError carrying its evidence; return it, and the primitive's step
// fails with it. A Value that holds one of the call's secrets is marked
// sensitive.
func (p *Page) Do(ctx context.Context, step engine.Step) error {
	if step.Value != "" && p.x.redact(step.Value) != step.Value {
		step.Sensitive = true
	}
	return p.x.DoIn(ctx, p.next(), TabStep{}, step)
}

// Goto navigates the page to url.
func (p *Page) Goto(ctx context.Context, url string, expect ...engine.Condition) error {
	return p.Do(ctx, engine.Step{Action: vocab.ActGoto, URL: url, Expect: expect})
}

// Click clicks the element t resolves to; expect are its post-conditions.
func (p *Page) Click(ctx context.Context, t engine.Target, expect ...engine.Condition) error {
	return p.Do(ctx, engine.Step{Action: vocab.ActClick, Target: &t, Expect: expect})
}

// Fill replaces the value of the field t resolves to.
func (p *Page) Fill(ctx context.Context, t engine.Target, value string, expect ...engine.Condition) error {
	return p.Do(ctx, engine.Step{Action: vocab.ActFill, Target: &t, Value: value, Expect: expect})
}

// Text reads the visible text of the element t resolves to (an extract).
func (p *Page) Text(ctx context.Context, t engine.Target) (string, error) {
	return p.x.Extract(ctx, p.next(), t, engine.Field{Text: true}, StepOptions{})
}

// Value reads a form control's current value.
func (p *Page) Value(ctx context.Context, t engine.Target) (string, error) {
	return p.x.Extract(ctx, p.next(), t, engine.Field{Value: true}, StepOptions{})
}

// Count counts the elements t matches.
func (p *Page) Count(ctx context.Context, t engine.Target) (int, error) {
	n, err := p.x.Count(ctx, p.next(), t, StepOptions{})
	return int(n), err
}

// ActionMenu lists the page's actionable elements with their targets, as
// an action_menu step does.
func (p *Page) ActionMenu(ctx context.Context, req MenuRequest) ([]MenuEntry, error) {
	return p.x.ActionMenu(ctx, p.next(), req, StepOptions{})
}

// AnnotatedScreenshot captures the badged, masked viewport, as an
// annotated_screenshot step does.
func (p *Page) AnnotatedScreenshot(ctx context.Context, name string) (AnnotatedShot, error) {
	return p.x.AnnotatedScreenshot(ctx, p.next(), name, StepOptions{})
}

// URL is the main tab's address, the call's secrets redacted. It opens
// the page if nothing has yet, and records no step.
func (p *Page) URL(ctx context.Context) (string, error) {
	pg, err := p.x.tabPage(ctx, MainTab)
	if err != nil {
		return "", err
	}
	u, err := pg.URL(ctx)
	if err != nil {
		return "", err
	}
	return p.x.redact(u), nil
}

// Steps is how many steps the handle has run so far.
func (p *Page) Steps() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// TypedPagePrimitive is TypedPrimitive for a function that takes the
// call's page: f gets the handle Exec.Primitive puts on the context.
func TypedPagePrimitive[A, R any](f func(context.Context, *Page, A) (R, error)) Primitive {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		pg, ok := PageFrom(ctx)
		if !ok {
			return nil, errNoPage
		}
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("arguments: %v", err)
		}
		return f(ctx, pg, a)
	}
}

// TypedPageAction is TypedPagePrimitive for a function with no result.
func TypedPageAction[A any](f func(context.Context, *Page, A) error) Primitive {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		pg, ok := PageFrom(ctx)
		if !ok {
			return nil, errNoPage
		}
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("arguments: %v", err)
		}
		return nil, f(ctx, pg, a)
	}
}
