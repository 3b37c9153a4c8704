package engine

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// Box is an element's border box in top-level viewport CSS pixels (iframe
// offsets already added), so it can be fed straight to input events.
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Center is the box's midpoint.
func (b Box) Center() (x, y float64) { return b.X + b.Width/2, b.Y + b.Height/2 }

// Fingerprint describes an element richly enough to find it again after the
// page re-rendered it as a new node.
type Fingerprint struct {
	Role  string            `json:"role,omitempty"`
	Name  string            `json:"name,omitempty"`
	Tag   string            `json:"tag"`
	Attrs map[string]string `json:"attrs,omitempty"` // id, name, type, data-testid, aria-label, href, placeholder
	Path  string            `json:"path,omitempty"`  // structural DOM path, e.g. html/body/ul/li[3]/button
	Text  string            `json:"text,omitempty"`  // text of the closest ancestor that says more than the element
	Frame string            `json:"frame,omitempty"` // frame path, "" for the top document
	// Twins counts other elements with the same tag, role and name when the
	// fingerprint was taken (a list's "Delete" buttons); for those Text is
	// part of the identity.
	Twins int `json:"twins,omitempty"`
}

// Element is a grounded element: a live reference (Ref) into the page plus
// what it looked like when grounded.
type Element struct {
	Ref         int         `json:"ref"`
	Role        string      `json:"role"`
	Name        string      `json:"name"`
	Tag         string      `json:"tag"`
	Selector    string      `json:"selector"`
	Frame       string      `json:"frame,omitempty"`
	Box         Box         `json:"box"`
	Visible     bool        `json:"visible"`
	Fingerprint Fingerprint `json:"fingerprint"`
	// Confidence is 1 for a unique match, a little less when a rule broke a
	// tie (only one visible match, substring fallback, accessibility tree),
	// and the similarity score for a Refind.
	Confidence float64 `json:"confidence"`
	// How says which rule grounded it: unique, visible, substring, words
	// (role name by word containment), nth, last, axtree or refind.
	How string `json:"how,omitempty"`

	page *Page
}

// RefindThreshold is the lowest similarity Refind accepts, and RefindMargin
// the lead the best match needs over the runner-up.
const (
	RefindThreshold = 0.6
	RefindMargin    = 0.02
)

// groundResult is the shape mk.resolve / mk.refind return.
type groundResult struct {
	OK         bool       `json:"ok"`
	Code       string     `json:"code"`
	Msg        string     `json:"msg"`
	Ref        int        `json:"ref"`
	El         *groundEl  `json:"el"`
	How        string     `json:"how"`
	Count      int        `json:"count"`
	Visible    int        `json:"visible"`
	Score      float64    `json:"score"`
	Candidates []groundEl `json:"candidates"`
}

type groundEl struct {
	Ref         int         `json:"ref"`
	Role        string      `json:"role"`
	Name        string      `json:"name"`
	Tag         string      `json:"tag"`
	Selector    string      `json:"selector"`
	Frame       string      `json:"frame"`
	Visible     bool        `json:"visible"`
	Box         Box         `json:"box"`
	Fingerprint Fingerprint `json:"fingerprint"`
	Score       float64     `json:"score"`
	Connected   bool        `json:"connected"`
}

func (j groundEl) candidate() Candidate {
	return Candidate{Role: j.Role, Name: j.Name, Tag: j.Tag, Selector: j.Selector, Frame: j.Frame, Visible: j.Visible}
}

func (p *Page) groundElement(j *groundEl, conf float64, how string) *Element {
	return &Element{
		Ref: j.Ref, Role: j.Role, Name: j.Name, Tag: j.Tag, Selector: j.Selector, Frame: j.Frame,
		Box: j.Box, Visible: j.Visible, Fingerprint: j.Fingerprint, Confidence: conf, How: how, page: p,
	}
}

// groundCheckTarget rejects targets the resolver cannot interpret before any
// page round trip.
func groundCheckTarget(t *Target) error {
	for cur := t; cur != nil; cur = cur.Within {
		n := 0
		for _, v := range []string{cur.Role, cur.Label, cur.Text, cur.Placeholder, cur.TestID, cur.CSS} {
			if v != "" {
				n++
			}
		}
		if n == 0 && cur.Name != "" {
			n = 1 // {name} alone: any role
		}
		if n != 1 {
			e := errorf(CodeInvalid, "a target sets exactly one of role, label, text, placeholder, testid, css (got %d)", n)
			e.Target = t
			return e
		}
		if cur.Name != "" && cur.Role == "" && n == 1 && (cur.Label != "" || cur.Text != "" || cur.Placeholder != "" || cur.TestID != "" || cur.CSS != "") {
			e := errorf(CodeInvalid, "name refines role only")
			e.Target = t
			return e
		}
		if cur.Nth != nil && *cur.Nth < 0 {
			e := errorf(CodeInvalid, "nth must be >= 0")
			e.Target = t
			return e
		}
	}
	return nil
}

func groundCandidates(js []groundEl, secrets []string) []Candidate {
	if len(js) == 0 {
		return nil
	}
	out := make([]Candidate, len(js))
	for i, j := range js {
		c := j.candidate()
		c.Name = redact.String(c.Name, secrets)
		out[i] = c
	}
	return out
}

var groundHowConfidence = map[string]float64{"unique": 1, "nth": 1, "last": 1, "visible": 0.95, "substring": 0.9, "words": 0.9, "axtree": 0.9}

// Resolve grounds t to exactly one element.
//
// Rules, in order: Within narrows the search to the descendants (shadow
// roots and iframes included) of the single element it resolves to; Nth or
// Last pick among the visible matches when any is visible, else among all;
// otherwise a single match wins, and among several matches exactly one
// visible match wins ("prefer visible"). Label, text and placeholder compare
// exactly after whitespace normalisation and fall back to a case-insensitive
// substring only when nothing matches exactly; role names are exact or
// /regex/flags, and when no name is exact, the visible elements whose name
// contains the name's words as whole words, ignoring case (How "words";
// several are ambiguous). Label matches that another match controls
// (aria-controls/aria-owns) or that are aria-hidden are dropped while
// another remains, and of nested matches the visible inner one stays
// (mk.operable). When several elements share a role and name, Chromium's
// accessibility tree settles the tie if exactly one of them is exposed with
// that name. Failures are *Error with CodeNotFound (near misses as
// Candidates), CodeAmbiguous (all matches, visible first) or CodeInvalid.
func (p *Page) Resolve(ctx context.Context, t Target) (*Element, error) {
	if err := groundCheckTarget(&t); err != nil {
		return nil, err
	}
	var r groundResult
	if err := p.call(ctx, &r, mkResolve, t, map[string]bool{"fingerprint": true}); err != nil {
		return nil, err
	}
	if r.OK {
		if r.El == nil {
			return nil, &Error{Code: CodeBrowser, Msg: "resolve returned no element", Target: &t}
		}
		return p.groundElement(r.El, groundHowConfidence[r.How], r.How), nil
	}
	if Code(r.Code) == CodeAmbiguous && t.Role != "" && t.Name != "" {
		if el := p.groundAXTie(ctx, t, r.Candidates); el != nil {
			return el, nil
		}
	}
	return nil, &Error{Code: Code(r.Code), Msg: r.Msg, Target: &t, Candidates: groundCandidates(r.Candidates, p.Secrets())}
}

// groundAXTie asks Chromium's accessibility tree about each candidate of an
// ambiguous role+name target and returns the single one the browser exposes
// with that role and name, or nil. It settles cases the JS name subset
// cannot (aria-hidden or inert subtrees, CSS-generated content).
func (p *Page) groundAXTie(ctx context.Context, t Target, cands []groundEl) *Element {
	if len(cands) < 2 || len(cands) > 10 {
		return nil
	}
	matchName, err := groundNameMatcher(t.Name)
	if err != nil {
		return nil
	}
	var winner *groundEl
	for i := range cands {
		c := &cands[i]
		h, err := p.callObject(ctx, mkDeref, c.Ref)
		if err != nil || h == nil {
			return nil
		}
		res, err := proto.AccessibilityGetPartialAXTree{ObjectID: h.Object.ObjectID, FetchRelatives: false}.Call(p.rod.Context(ctx))
		_ = h.Release()
		if err != nil || len(res.Nodes) == 0 {
			return nil
		}
		n := res.Nodes[0]
		if n.Ignored || n.Role == nil || n.Name == nil {
			continue
		}
		if !strings.EqualFold(n.Role.Value.Str(), t.Role) || !matchName(n.Name.Value.Str()) {
			continue
		}
		if winner != nil {
			return nil
		}
		winner = c
	}
	if winner == nil {
		return nil
	}
	var info groundEl
	if err := p.call(ctx, &info, mkElementInfoRef, winner.Ref); err != nil || info.Ref == 0 {
		return nil
	}
	return p.groundElement(&info, groundHowConfidence["axtree"], "axtree")
}

// Count returns how many elements match t (nth/last ignored, within
// applied, hidden matches included): the baseline for list_count_delta.
func (p *Page) Count(ctx context.Context, t Target) (int, error) {
	n, _, err := p.CountVisible(ctx, t)
	return n, err
}

// CountVisible returns how many elements match t and how many of those are
// visible.
func (p *Page) CountVisible(ctx context.Context, t Target) (all, visible int, err error) {
	tt := t
	tt.Nth, tt.Last = nil, false
	if err := groundCheckTarget(&tt); err != nil {
		return 0, 0, err
	}
	var r groundResult
	if err := p.call(ctx, &r, mkCount, tt); err != nil {
		return 0, 0, err
	}
	if !r.OK {
		return 0, 0, &Error{Code: Code(r.Code), Msg: r.Msg, Target: &t, Candidates: groundCandidates(r.Candidates, p.Secrets())}
	}
	return r.Count, r.Visible, nil
}

// Matches lists every element t matches, in document order (nth/last
// ignored), for diagnostics and for callers that choose themselves.
func (p *Page) Matches(ctx context.Context, t Target) ([]Candidate, error) {
	tt := t
	tt.Nth, tt.Last = nil, false
	if err := groundCheckTarget(&tt); err != nil {
		return nil, err
	}
	var r groundResult
	if err := p.call(ctx, &r, mkMatches, tt); err != nil {
		return nil, err
	}
	if !r.OK {
		return nil, &Error{Code: Code(r.Code), Msg: r.Msg, Target: &t, Candidates: groundCandidates(r.Candidates, p.Secrets())}
	}
	return groundCandidates(r.Candidates, p.Secrets()), nil
}

// Refind finds the element a fingerprint describes, typically after the page
// replaced the original node. The result's Confidence is the weighted
// feature similarity; below RefindThreshold it fails with CodeNotFound, and
// when the runner-up is within RefindMargin with CodeAmbiguous (both list the
// best-scoring candidates).
func (p *Page) Refind(ctx context.Context, fp Fingerprint) (*Element, error) {
	if fp.Tag == "" && fp.Role == "" {
		return nil, errorf(CodeInvalid, "empty fingerprint")
	}
	var r groundResult
	if err := p.call(ctx, &r, mkRefind, fp, RefindThreshold, RefindMargin); err != nil {
		return nil, err
	}
	if !r.OK || r.El == nil {
		msg := r.Msg
		if msg == "" {
			msg = "refind returned no element"
		}
		return nil, &Error{Code: Code(r.Code), Msg: fmt.Sprintf("%s %q: %s", fp.Role, redact.String(fp.Name, p.Secrets()), msg), Candidates: groundCandidates(r.Candidates, p.Secrets())}
	}
	return p.groundElement(r.El, r.Score, "refind"), nil
}

// ElementByRef wraps an in-page ref (from a snapshot) as an *Element; it
// fails with CodeNotFound once the node is detached.
func (p *Page) ElementByRef(ctx context.Context, ref int) (*Element, error) {
	var info groundEl
	if err := p.call(ctx, &info, mkElementInfoRef, ref); err != nil {
		return nil, err
	}
	if info.Ref == 0 {
		return nil, &Error{Code: CodeNotFound, Msg: fmt.Sprintf("ref %d is detached", ref)}
	}
	return p.groundElement(&info, 1, "ref"), nil
}

// Page returns the page the element belongs to.
func (e *Element) Page() *Page { return e.page }

// Candidate summarises the element for error candidate lists.
func (e *Element) Candidate() Candidate {
	return Candidate{Role: e.Role, Name: e.Name, Tag: e.Tag, Selector: e.Selector, Frame: e.Frame, Visible: e.Visible}
}

// Handle returns a rod handle to the live node. It fails with CodeNotFound
// when the node has been detached (the page re-rendered it): call Refind
// with the Fingerprint then.
func (e *Element) Handle(ctx context.Context) (*rod.Element, error) {
	if e.page == nil {
		return nil, errorf(CodeInvalid, "element has no page")
	}
	h, err := e.page.callObject(ctx, mkDeref, e.Ref)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, &Error{Code: CodeNotFound, Msg: fmt.Sprintf("%s %q <%s> is detached", e.Role, e.Name, e.Tag)}
	}
	return h, nil
}

// Refresh re-reads the element's box, visibility, role and name from the
// live node; it fails with CodeNotFound once the node is detached.
func (e *Element) Refresh(ctx context.Context) error {
	if e.page == nil {
		return errorf(CodeInvalid, "element has no page")
	}
	var info groundEl
	if err := e.page.call(ctx, &info, mkInfo, e.Ref); err != nil {
		return err
	}
	if !info.Connected {
		return &Error{Code: CodeNotFound, Msg: fmt.Sprintf("%s %q <%s> is detached", e.Role, e.Name, e.Tag)}
	}
	e.Role, e.Name, e.Selector, e.Frame, e.Box, e.Visible = info.Role, info.Name, info.Selector, info.Frame, info.Box, info.Visible
	return nil
}

// groundNameMatcher mirrors the in-page matcher for role names: exact after
// whitespace normalisation, or /regex/flags.
func groundNameMatcher(s string) (func(string) bool, error) {
	if re, ok, err := groundRegex(s); ok {
		if err != nil {
			return nil, err
		}
		return func(v string) bool { return re.MatchString(v) }, nil
	}
	want := groundNorm(s)
	return func(v string) bool { return groundNorm(v) == want }, nil
}

func groundNorm(s string) string { return strings.Join(strings.Fields(s), " ") }

// groundRegex parses a "/body/flags" literal (flags i, m, s honoured) into a
// Go regexp; ok is false when s is not a regex literal.
func groundRegex(s string) (re *regexp.Regexp, ok bool, err error) {
	if len(s) < 3 || s[0] != '/' {
		return nil, false, nil
	}
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		return nil, false, nil
	}
	flags := s[i+1:]
	goFlags := ""
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			goFlags += string(f)
		case 'g', 'y', 'u', 'd', 'v':
		default:
			return nil, false, nil
		}
	}
	body := s[1:i]
	if goFlags != "" {
		body = "(?" + goFlags + ")" + body
	}
	re, err = regexp.Compile(body)
	return re, true, err
}
