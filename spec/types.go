package spec

import (
	"strings"
)

// Kind is the Go-able kind of a value.
type Kind string

// The kinds of values. KindAny is a value whose shape is only known at run
// time (an http extract without a type, a free-form object's field, ...).
const (
	KindAny     Kind = "any"
	KindString  Kind = "string"
	KindInteger Kind = "integer"
	KindNumber  Kind = "number"
	KindBoolean Kind = "boolean"
	KindArray   Kind = "array"
	KindObject  Kind = "object"
	kindNull    Kind = "null" // only the type of a literal null
)

// Type is the shape of a parameter, result field, primitive argument or
// variable: a JSON Schema type restricted to what maps onto Go types.
type Type struct {
	Kind Kind // the JSON Schema type
	// Items is the element type of an array.
	Items *Type
	// Props are an object's declared properties in source order. An object
	// with no declared properties is free-form (a map[string]any in Go).
	Props []*Property
	// Enum lists the allowed values, when the schema restricts them.
	Enum []any
	// Format is the JSON Schema string format (email, date-time, ...).
	Format string
}

// Property is a named field of an object type: a parameter of a macro, a
// field of its result, a field of a nested object, or a primitive's argument.
type Property struct {
	Name string // as written in the schema or signature
	// GoName is the exported Go identifier for Name (see GoName).
	GoName      string
	Type        *Type  // the value's type
	Description string // the schema's description
	// Default is the schema's default value, when HasDefault.
	Default    any
	HasDefault bool // whether Default is set
	// Secret marks a sensitive value (`secret: true`): it is redacted in
	// traces, must not appear in URLs and must not be returned.
	Secret bool
	// Split is the `split:` annotation of a top-level string parameter: a
	// regular expression whose named groups name parameters. A value the
	// parameter's own schema rejects but Split matches is taken apart into
	// those parameters (runtime.ArgSplit); "" when there is none.
	Split    string
	SplitPos Pos // where Split is written
	// Composed marks a top-level parameter whose value the model writes
	// (`composed: true`: a message, a title) rather than takes from the
	// request, so the router's grounding check skips it.
	Composed bool
	// Consequential is the `consequential:` annotation of a top-level
	// parameter that turns a dry run into a write or widens an effect; nil
	// when there is none.
	Consequential *ConsequentialParam
	Required      bool // listed in the schema's required (for primitives: must be given)
	Pos           Pos  // where the property is declared
}

// Scalar returns a type of the given scalar kind (or KindAny).
func Scalar(k Kind) *Type { return &Type{Kind: k} }

// ArrayOf returns the type of an array of items.
func ArrayOf(items *Type) *Type { return &Type{Kind: KindArray, Items: items} }

// ObjectOf returns the type of an object with the given properties; with no
// properties it is a free-form object.
func ObjectOf(props ...*Property) *Type { return &Type{Kind: KindObject, Props: props} }

// Prop returns the property called name, or nil.
func (t *Type) Prop(name string) *Property {
	if t == nil {
		return nil
	}
	for _, p := range t.Props {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// IsScalar reports whether values of t can be inserted into text: strings,
// numbers, integers and booleans (and values of unknown shape, checked at run
// time).
func (t *Type) IsScalar() bool {
	if t == nil {
		return true
	}
	switch t.Kind {
	case KindString, KindInteger, KindNumber, KindBoolean, KindAny:
		return true
	}
	return false
}

// String renders the type for messages: "string", "array of string",
// "object {id, status}".
func (t *Type) String() string {
	if t == nil {
		return string(KindAny)
	}
	switch t.Kind {
	case KindArray:
		return "array of " + t.Items.String()
	case KindObject:
		if len(t.Props) == 0 {
			return "object"
		}
		names := make([]string, len(t.Props))
		for i, p := range t.Props {
			names[i] = p.Name
		}
		return "object {" + strings.Join(names, ", ") + "}"
	}
	return string(t.Kind)
}

// propNames lists the names of t's properties.
func (t *Type) propNames() []string {
	if t == nil {
		return nil
	}
	names := make([]string, len(t.Props))
	for i, p := range t.Props {
		names[i] = p.Name
	}
	return names
}

// article renders a type with "a"/"an", for messages.
func article(t *Type) string {
	s := t.String()
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + s
	}
	return "a " + s
}

// typeOf infers the type of a literal JSON value.
func typeOf(v any) *Type {
	switch v := v.(type) {
	case nil:
		return Scalar(kindNull)
	case bool:
		return Scalar(KindBoolean)
	case int, int64, uint64:
		return Scalar(KindInteger)
	case float64:
		return Scalar(KindNumber)
	case string:
		return Scalar(KindString)
	case []any:
		var elems []*Type
		for _, e := range v {
			elems = append(elems, typeOf(e))
		}
		return ArrayOf(unify(elems))
	case map[string]any:
		t := ObjectOf()
		for _, k := range sortedKeys(v) {
			t.Props = append(t.Props, &Property{Name: k, GoName: GoName(k), Type: typeOf(v[k]), Required: true})
		}
		return t
	}
	return Scalar(KindAny)
}

// unify returns the common type of list elements: their kind when they all
// agree (integers widen to numbers), else any.
func unify(ts []*Type) *Type {
	if len(ts) == 0 {
		return Scalar(KindAny)
	}
	out := ts[0]
	for _, t := range ts[1:] {
		switch {
		case t.Kind == out.Kind && t.Kind != KindArray && t.Kind != KindObject:
		case t.Kind == KindNumber && out.Kind == KindInteger:
			out = t
		case t.Kind == KindInteger && out.Kind == KindNumber:
		case t.Kind == out.Kind && t.Kind == KindArray:
			out = ArrayOf(unify([]*Type{out.Items, t.Items}))
		case t.Kind == out.Kind && t.Kind == KindObject:
			if t.String() != out.String() {
				out = ObjectOf()
			}
		default:
			return Scalar(KindAny)
		}
	}
	return out
}
