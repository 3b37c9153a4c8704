package engine

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// SnapshotOptions tunes Page.Snapshot. The zero value is the normal scan.
type SnapshotOptions struct {
	// Headings adds headings (role heading) for page structure.
	Headings bool
	// Max caps the number of elements (0 means 5000); Truncated reports a cut.
	Max int
	// NoHitTest skips the per-element occlusion test (elementFromPoint),
	// leaving Occluded false: for callers that only need names and roles.
	NoHitTest bool
}

// States are an element's ARIA/HTML states. Checked and Mixed are only
// meaningful when Checkable, Expanded only when Expandable.
type States struct {
	Checkable  bool `json:"checkable,omitempty"`
	Checked    bool `json:"checked,omitempty"`
	Mixed      bool `json:"mixed,omitempty"`
	Expandable bool `json:"expandable,omitempty"`
	Expanded   bool `json:"expanded,omitempty"`
	Selected   bool `json:"selected,omitempty"`
	Disabled   bool `json:"disabled,omitempty"`
	Readonly   bool `json:"readonly,omitempty"`
	Required   bool `json:"required,omitempty"`
	Invalid    bool `json:"invalid,omitempty"`
	Focused    bool `json:"focused,omitempty"`
}

// SnapElement is one interactive or landmark element of a snapshot. Its
// position in Snapshot.Elements is its menu number.
type SnapElement struct {
	Ref     int    `json:"ref"` // in-page ref; Snapshot.Element turns it into an *Element
	Role    string `json:"role"`
	Name    string `json:"name"`
	Tag     string `json:"tag"`
	Type    string `json:"type,omitempty"`  // input type
	Value   string `json:"value,omitempty"` // current value (passwords masked)
	Href    string `json:"href,omitempty"`
	Level   int    `json:"level,omitempty"` // heading level
	States  States `json:"states"`
	Visible bool   `json:"visible"`
	// InViewport: visible and at least partly inside the viewport.
	InViewport bool `json:"in_viewport"`
	// Occluded: in the viewport but another element covers its centre.
	Occluded bool   `json:"occluded"`
	Landmark bool   `json:"landmark,omitempty"`
	Box      Box    `json:"box"`
	Selector string `json:"selector"`
	Frame    string `json:"frame,omitempty"`
}

// OpenDialog is a visible <dialog open> or [role=dialog|alertdialog].
type OpenDialog struct {
	Index    int    `json:"index"` // into Snapshot.Elements
	Role     string `json:"role"`
	Name     string `json:"name"`
	Modal    bool   `json:"modal"`
	Text     string `json:"text,omitempty"`
	Selector string `json:"selector"`
	Frame    string `json:"frame,omitempty"`
}

// FieldError is an invalid field with the message that explains it
// (validationMessage, aria-errormessage or aria-describedby text).
type FieldError struct {
	Index    int    `json:"index"` // into Snapshot.Elements
	Role     string `json:"role"`
	Name     string `json:"name"`
	Message  string `json:"message,omitempty"`
	Selector string `json:"selector"`
	Frame    string `json:"frame,omitempty"`
}

// LiveText is the text of a visible live region ([aria-live], role status,
// alert, log...): toasts and status lines.
type LiveText struct {
	Role     string `json:"role,omitempty"`
	Live     string `json:"live"` // polite or assertive
	Text     string `json:"text"`
	Selector string `json:"selector"`
	Frame    string `json:"frame,omitempty"`
}

// Signals are page-level facts a step's outcome often shows up in.
type Signals struct {
	Dialogs    []OpenDialog `json:"dialogs,omitempty"`
	Validation []FieldError `json:"validation,omitempty"`
	Live       []LiveText   `json:"live,omitempty"`
}

// Snapshot is what the page offers at one moment, from a single in-page
// evaluation.
type Snapshot struct {
	URL       string        `json:"url"`
	Title     string        `json:"title"`
	Viewport  Box           `json:"viewport"` // X, Y are 0
	Elements  []SnapElement `json:"elements"`
	Signals   Signals       `json:"signals"`
	Truncated bool          `json:"truncated,omitempty"`
	// Duration is the whole call; ScanDuration the in-page evaluation.
	Duration     time.Duration `json:"duration"`
	ScanDuration time.Duration `json:"scan_duration"`

	page *Page
}

type snapJS struct {
	URL      string `json:"url"`
	Title    string `json:"title"`
	Viewport struct {
		Width  float64 `json:"width"`
		Height float64 `json:"height"`
	} `json:"viewport"`
	Elements  []SnapElement `json:"elements"`
	Signals   Signals       `json:"signals"`
	Truncated bool          `json:"truncated"`
	MS        float64       `json:"ms"`
}

// Snapshot lists the page's interactive and landmark elements (across open
// shadow roots and same-origin iframes) and its signals in one evaluation.
// Names, values and signal texts have the page's secrets redacted.
func (p *Page) Snapshot(ctx context.Context, opts SnapshotOptions) (*Snapshot, error) {
	start := time.Now()
	var r snapJS
	if err := p.snapCallJSON(ctx, &r, mkSnapshot, map[string]any{"headings": opts.Headings, "max": opts.Max, "noHitTest": opts.NoHitTest}); err != nil {
		return nil, err
	}
	s := &Snapshot{
		URL: r.URL, Title: r.Title, Viewport: Box{Width: r.Viewport.Width, Height: r.Viewport.Height},
		Elements: r.Elements, Signals: r.Signals, Truncated: r.Truncated,
		ScanDuration: time.Duration(r.MS * float64(time.Millisecond)), page: p,
	}
	if s.Elements == nil {
		s.Elements = []SnapElement{}
	}
	if sec := p.Secrets(); len(sec) > 0 {
		s.Title = redact.String(s.Title, sec)
		for i := range s.Elements {
			e := &s.Elements[i]
			e.Name, e.Value = redact.String(e.Name, sec), redact.String(e.Value, sec)
		}
		for i := range s.Signals.Dialogs {
			d := &s.Signals.Dialogs[i]
			d.Name, d.Text = redact.String(d.Name, sec), redact.String(d.Text, sec)
		}
		for i := range s.Signals.Validation {
			v := &s.Signals.Validation[i]
			v.Name, v.Message = redact.String(v.Name, sec), redact.String(v.Message, sec)
		}
		for i := range s.Signals.Live {
			s.Signals.Live[i].Text = redact.String(s.Signals.Live[i].Text, sec)
		}
	}
	s.Duration = time.Since(start)
	return s, nil
}

// Element turns menu entry i into a grounded *Element (fresh box, new
// fingerprint), failing with CodeNotFound if the index is out of range or
// the node has since been detached.
func (s *Snapshot) Element(ctx context.Context, i int) (*Element, error) {
	if i < 0 || i >= len(s.Elements) {
		return nil, errorf(CodeNotFound, "no element [%d] in the snapshot (%d elements)", i, len(s.Elements))
	}
	if s.page == nil {
		return nil, errorf(CodeInvalid, "snapshot has no page")
	}
	return s.page.ElementByRef(ctx, s.Elements[i].Ref)
}

// MenuOptions tunes Snapshot.Menu.
type MenuOptions struct {
	// Hidden lists invisible elements too (marked "hidden").
	Hidden bool
	// NoSignals leaves out the dialog / validation / live-region lines.
	NoSignals bool
	// MaxName truncates names and values (0 means 80 characters).
	MaxName int
}

// ActionMenu is the compact text a small model picks actions from: one line
// per visible element, numbered by its index in Elements, e.g.
//
//	[3] button "Save" (disabled)
//	[4] textbox "Email" = "a@b.c" (required, invalid)
//
// followed by the page signals (open dialogs, field errors, status text).
func (s *Snapshot) ActionMenu() string { return s.Menu(MenuOptions{}) }

// Menu renders the action menu with options.
func (s *Snapshot) Menu(o MenuOptions) string {
	maxName := o.MaxName
	if maxName <= 0 {
		maxName = 80
	}
	var b strings.Builder
	for i, e := range s.Elements {
		if !e.Visible && !o.Hidden {
			continue
		}
		fmt.Fprintf(&b, "[%d] %s", i, e.Role)
		if e.Name != "" {
			fmt.Fprintf(&b, " %q", snapClip(e.Name, maxName))
		}
		if e.Value != "" {
			fmt.Fprintf(&b, " = %q", snapClip(e.Value, maxName))
		}
		if st := snapStates(e); len(st) > 0 {
			b.WriteString(" (" + strings.Join(st, ", ") + ")")
		}
		b.WriteByte('\n')
	}
	if o.NoSignals {
		return b.String()
	}
	for _, d := range s.Signals.Dialogs {
		kind := d.Role
		if d.Modal {
			kind = "modal " + kind
		}
		fmt.Fprintf(&b, "! open %s [%d] %q\n", kind, d.Index, snapClip(d.Name, maxName))
	}
	for _, v := range s.Signals.Validation {
		fmt.Fprintf(&b, "! invalid [%d] %q: %s\n", v.Index, snapClip(v.Name, maxName), snapClip(v.Message, 2*maxName))
	}
	for _, l := range s.Signals.Live {
		role := l.Role
		if role == "" {
			role = "live"
		}
		fmt.Fprintf(&b, "! %s: %q\n", role, snapClip(l.Text, 2*maxName))
	}
	return b.String()
}

func snapStates(e SnapElement) []string {
	var out []string
	st := e.States
	if st.Checkable {
		switch {
		case st.Mixed:
			out = append(out, "mixed")
		case st.Checked:
			out = append(out, "checked")
		default:
			out = append(out, "unchecked")
		}
	}
	if st.Expandable {
		if st.Expanded {
			out = append(out, "expanded")
		} else {
			out = append(out, "collapsed")
		}
	}
	if e.Level > 0 {
		out = append(out, "level "+itoa(e.Level))
	}
	add := func(on bool, s string) {
		if on {
			out = append(out, s)
		}
	}
	add(st.Selected, "selected")
	add(st.Disabled, "disabled")
	add(st.Readonly, "readonly")
	add(st.Required, "required")
	add(st.Invalid, "invalid")
	add(st.Focused, "focused")
	add(e.Occluded, "occluded")
	add(!e.Visible, "hidden")
	return out
}

func snapClip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// AnnotatedItem is one numbered badge of an annotated screenshot.
type AnnotatedItem struct {
	Index int    `json:"index"` // into Snapshot.Elements, the menu number
	Role  string `json:"role"`
	Name  string `json:"name"`
	Box   Box    `json:"box"`
}

// Annotated is a viewport screenshot with numbered badges over the visible
// interactive elements, for a model that grounds on pixels.
type Annotated struct {
	PNG      []byte          `json:"-"`
	Width    int             `json:"width"`
	Height   int             `json:"height"`
	Items    []AnnotatedItem `json:"items"`
	Snapshot *Snapshot       `json:"snapshot"`
}

// AnnotatedScreenshot snapshots the page, draws a numbered badge over every
// visible, in-viewport, non-landmark element (an overlay injected into the
// page), captures the viewport as PNG and removes the overlay again, even
// when ctx is cancelled meanwhile. Badge numbers are snapshot indices, so the
// menu and the picture agree.
func (p *Page) AnnotatedScreenshot(ctx context.Context) (*Annotated, error) {
	return p.annotatedScreenshot(ctx, false)
}

// MaskedAnnotatedScreenshot is AnnotatedScreenshot with the page's secrets
// covered the way MaskedScreenshot covers them (measured before and after
// the capture, painted on the image): the picture a log or a person may
// see. A measurement that fails fails the screenshot.
func (p *Page) MaskedAnnotatedScreenshot(ctx context.Context) (*Annotated, error) {
	return p.annotatedScreenshot(ctx, true)
}

func (p *Page) annotatedScreenshot(ctx context.Context, mask bool) (*Annotated, error) {
	snap, err := p.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		return nil, err
	}
	a := &Annotated{Snapshot: snap}
	boxes := make([]map[string]any, 0, len(snap.Elements))
	for i, e := range snap.Elements {
		if !e.InViewport || e.Landmark {
			continue
		}
		a.Items = append(a.Items, AnnotatedItem{Index: i, Role: e.Role, Name: e.Name, Box: e.Box})
		boxes = append(boxes, map[string]any{"i": i, "x": e.Box.X, "y": e.Box.Y, "width": e.Box.Width, "height": e.Box.Height})
	}
	if err := p.call(ctx, nil, mkAnnotate, boxes); err != nil {
		return nil, err
	}
	var before, after maskMeasure
	var maskErr error
	secrets := p.Secrets()
	if mask {
		maskErr = p.call(ctx, &before, mkMaskBoxes, secrets)
	}
	var shot *proto.PageCaptureScreenshotResult
	var shotErr error
	if maskErr == nil {
		shot, shotErr = proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng}.Call(p.rod.Context(ctx))
		if mask && shotErr == nil {
			maskErr = p.call(ctx, &after, mkMaskBoxes, secrets)
		}
	}
	// Remove the overlay whatever happened to ctx: a page must not keep it.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var gone bool
	rmErr := p.call(cctx, &gone, mkUnannotate)
	if maskErr != nil {
		return nil, maskErr
	}
	if shotErr != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "screenshot", Err: shotErr}
	}
	if rmErr != nil {
		return nil, rmErr
	}
	if !gone {
		return nil, errorf(CodeBrowser, "annotation overlay still in the page after removal")
	}
	a.PNG = shot.Data
	if mask && (len(before.Boxes) > 0 || len(after.Boxes) > 0) {
		if a.PNG, err = paintMasks(shot.Data, before, after); err != nil {
			return nil, err
		}
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(shot.Data))
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "screenshot is not a PNG", Err: err}
	}
	a.Width, a.Height = cfg.Width, cfg.Height
	return a, nil
}
