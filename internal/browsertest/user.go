package browsertest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
)

// User drives a page the way a person does: trusted CDP mouse and
// keyboard input at where an element is shown, never the page's own
// functions. The test finds where to point with a CSS selector and, when
// text is given, the element's text (as a person reads the screen).
type User struct {
	Page *rod.Page
}

// FindPage waits for a page of b whose URL starts with prefix (one another
// client opened) and returns it.
func FindPage(ctx context.Context, b *rod.Browser, prefix string) (*rod.Page, error) {
	for {
		pages, err := b.Context(ctx).Pages()
		if err == nil {
			for _, p := range pages {
				info, err := p.Info()
				if err == nil && strings.HasPrefix(info.URL, prefix) {
					return p.Context(ctx), nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no page at %s: %w", prefix, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Click moves the mouse to the middle of the visible element matching css
// (and holding text, when text is not empty), once it stopped moving, and
// clicks it.
func (u User) Click(ctx context.Context, css, text string) error {
	p := u.Page.Context(ctx)
	var el *rod.Element
	var err error
	if text == "" {
		el, err = p.Element(css)
	} else {
		el, err = p.ElementR(css, "^"+regexpQuote(text)+"$")
	}
	if err != nil {
		return fmt.Errorf("find %s %q: %w", css, text, err)
	}
	// Where it settles: a popup's options slide in (antd animates its
	// dropdowns), and a point read mid-flight can land beside them.
	if err := el.WaitStableRAF(); err != nil {
		return err
	}
	shape, err := el.Shape()
	if err != nil {
		return err
	}
	box := shape.Box()
	if err := p.Mouse.MoveTo(proto.Point{X: box.X + box.Width/2, Y: box.Y + box.Height/2}); err != nil {
		return err
	}
	return p.Mouse.Click(proto.InputMouseButtonLeft, 1)
}

// Type presses one key per character of s.
func (u User) Type(ctx context.Context, s string) error {
	kb := u.Page.Context(ctx).Keyboard
	for _, r := range s {
		if err := kb.Type(input.Key(r)); err != nil {
			return err
		}
	}
	return nil
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
