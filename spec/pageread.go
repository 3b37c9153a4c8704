package spec

import (
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// The page reads (vocab.Reads): steps that bind what the engine shows a
// model — the action menu and the annotated screenshot — as data.

// MaxMenuLimit bounds an action_menu's `limit`: each entry costs a few
// in-page lookups (the target proposed for it must resolve to exactly it).
const MaxMenuLimit = 500

// ActionMenu is an action_menu step: {into, within, limit}.
type ActionMenu struct {
	// Within restricts the menu to the inside of one element (nil: the
	// page).
	Within *Target
	// Limit caps the entries (0: the runtime's default, 50).
	Limit int
	// Into receives the entries (MenuType).
	Into    string
	IntoPos Pos
	Pos     Pos
}

// AnnotatedScreenshot is an annotated_screenshot step: {into, name}.
type AnnotatedScreenshot struct {
	// Name goes into the PNG's file name ("": "page").
	Name string
	// Into receives {path, width, height, menu} (AnnotatedType); ""
	// keeps the image for the session's evidence only.
	Into    string
	IntoPos Pos
	Pos     Pos
}

// TargetType is the type of a target as a read binds it: a free-form
// object holding just the locator fields the target uses ({role, name},
// {label}, {testid} or {css}), as a spec would write it; its fields are
// strings, read as any.
func TargetType() *Type { return ObjectOf() }

// MenuEntryType is the type of one action menu entry: its number (the
// badge of an annotated screenshot), role, accessible name, and the
// target that resolves to exactly it (absent when none does).
func MenuEntryType() *Type {
	return ObjectOf(
		&Property{Name: "index", GoName: "Index", Type: Scalar(KindInteger), Required: true, Description: "the element's number, the badge an annotated screenshot draws"},
		&Property{Name: "role", GoName: "Role", Type: Scalar(KindString), Required: true, Description: "the element's role"},
		&Property{Name: "name", GoName: "Name", Type: Scalar(KindString), Required: true, Description: "the element's accessible name, secrets redacted"},
		&Property{Name: "target", GoName: "Target", Type: TargetType(), Description: "a target that resolves to exactly this element"},
	)
}

// MenuType is the type action_menu binds: a list of MenuEntryType.
func MenuType() *Type { return ArrayOf(MenuEntryType()) }

// AnnotatedType is the type annotated_screenshot binds.
func AnnotatedType() *Type {
	return ObjectOf(
		&Property{Name: "path", GoName: "Path", Type: Scalar(KindString), Required: true, Description: "the PNG beside the session's screenshots (empty without a session log)"},
		&Property{Name: "width", GoName: "Width", Type: Scalar(KindInteger), Required: true, Description: "the image's width in pixels"},
		&Property{Name: "height", GoName: "Height", Type: Scalar(KindInteger), Required: true, Description: "the image's height in pixels"},
		&Property{Name: "menu", GoName: "Menu", Type: MenuType(), Required: true, Description: "the badged elements, in badge order"},
	)
}

// actionMenu reads an action_menu step's mapping.
func (p *parser) actionMenu(m *mapping) *ActionMenu {
	a := &ActionMenu{Pos: p.pos(m.node)}
	m.require("into")
	if n := m.get("into"); n != nil {
		a.Into, a.IntoPos = p.varName(n, m.sub("into"))
	}
	if n := m.get("within"); n != nil {
		a.Within = p.target(n, m.sub("within"))
	}
	if n := m.get("limit"); n != nil {
		if v, ok := p.integer(n, m.sub("limit")); ok {
			if v < 1 || v > MaxMenuLimit {
				p.errf(n, m.sub("limit"), "limit must be between 1 and %d, got %d", MaxMenuLimit, v)
			}
			a.Limit = v
		}
	}
	return a
}

// annotatedScreenshot reads an annotated_screenshot step's mapping.
func (p *parser) annotatedScreenshot(m *mapping) *AnnotatedScreenshot {
	a := &AnnotatedScreenshot{Pos: p.pos(m.node)}
	if n := m.get("into"); n != nil {
		a.Into, a.IntoPos = p.varName(n, m.sub("into"))
	}
	if n := m.get("name"); n != nil {
		if s, ok := p.name(n, m.sub("name")); ok {
			if !fileNameRE.MatchString(s) {
				p.errf(n, m.sub("name"), "annotated_screenshot name %q must be letters, digits, '.', '_' or '-' (it becomes a file name)", s)
			}
			a.Name = s
		}
	}
	return a
}

// pageRead checks a page read and defines its variable.
func (c *checker) pageRead(s *Step, sc *scope, path string) []pending {
	switch {
	case s.ActionMenu != nil:
		a := s.ActionMenu
		c.target(a.Within, sc, join(path, "within"))
		if a.Into != "" {
			return []pending{{a.Into, a.IntoPos, join(path, "into"), MenuType(), false}}
		}
	case s.Annotated != nil && s.Annotated.Into != "":
		return []pending{{s.Annotated.Into, s.Annotated.IntoPos, join(path, "into"), AnnotatedType(), false}}
	}
	return nil
}

// IsPageRead reports whether k is one of the page reads (action_menu,
// annotated_screenshot).
func (k StepKind) IsPageRead() bool { return vocab.Read(k).Valid() }
