package spec

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/xeipuuv/gojsonschema"
	"gopkg.in/yaml.v3"
)

// schemaKeywords are the draft-07 keywords params and result may use, plus
// macrokit's `secret`, `split`, `composed` and `consequential` annotations.
var schemaKeywords = []string{
	"$schema", "$comment", "title", "description", "default", "readOnly", "writeOnly", "examples",
	"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
	"minLength", "pattern", "additionalItems", "items", "maxItems", "minItems", "uniqueItems",
	"contains", "maxProperties", "minProperties", "required", "additionalProperties",
	"properties", "patternProperties", "dependencies", "propertyNames", "const", "enum", "type",
	"format", "contentMediaType", "contentEncoding", "if", "then", "else", "allOf", "anyOf",
	"oneOf", "not", "secret", "split", "composed", "consequential",
}

// unsupportedKeywords are valid draft-07 keywords macrokit rejects, and why.
var unsupportedKeywords = map[string]string{
	"$ref":        "references are not supported; write the schema inline",
	"$id":         "schema identifiers are not supported (the schema is inline)",
	"definitions": "definitions are not supported (there is no $ref); write the schema inline",
}

// keywordKinds says which types a type-specific keyword applies to.
var keywordKinds = map[string][]Kind{
	"minLength": {KindString}, "maxLength": {KindString}, "pattern": {KindString}, "format": {KindString},
	"split":            {KindString},
	"consequential":    {KindBoolean, KindInteger, KindNumber, KindString},
	"contentMediaType": {KindString}, "contentEncoding": {KindString},
	"minimum": {KindInteger, KindNumber}, "maximum": {KindInteger, KindNumber},
	"exclusiveMinimum": {KindInteger, KindNumber}, "exclusiveMaximum": {KindInteger, KindNumber},
	"multipleOf": {KindInteger, KindNumber},
	"items":      {KindArray}, "minItems": {KindArray}, "maxItems": {KindArray}, "uniqueItems": {KindArray},
	"contains": {KindArray}, "additionalItems": {KindArray},
	"properties": {KindObject}, "required": {KindObject}, "additionalProperties": {KindObject},
	"minProperties": {KindObject}, "maxProperties": {KindObject}, "patternProperties": {KindObject},
	"dependencies": {KindObject}, "propertyNames": {KindObject},
}

var typeNames = []string{"string", "integer", "number", "boolean", "array", "object"}

const draft07URL = "http://json-schema.org/draft-07/schema"

// schema reads params or result: a JSON Schema of an object.
func (p *parser) schema(n *yaml.Node, path string) *Schema {
	n = resolve(n)
	s := &Schema{Raw: map[string]any{}, Type: ObjectOf(), Pos: p.pos(n)}
	if n == nil || n.Kind != yaml.MappingNode {
		p.errf(n, path, "expected a mapping (a JSON Schema of an object), got %s", describe(n))
		return s
	}
	before := len(p.diags)
	raw, ok := p.jsonValue(n, path)
	if m, isMap := raw.(map[string]any); isMap {
		s.Raw = m
	}
	s.Type, _ = p.schemaType(n, path, true)
	if !ok {
		return s
	}
	// The checks above catch the usual mistakes with precise messages; the
	// meta-schema and the compiler catch the rest (skipping places that
	// already have a diagnostic).
	reported := map[Pos]bool{}
	for _, d := range p.diags[before:] {
		reported[Pos{File: d.File, Line: d.Line, Col: d.Col}] = true
	}
	p.metaValidate(s.Raw, n, path, reported)
	if len(p.diags) != before {
		p.checkDefaults(s.Type, s.Raw, n, path, reported)
		p.checkSplits(s, path)
		return s
	}
	if _, err := compileSchema(s.Raw); err != nil {
		p.errf(n, path, "invalid JSON Schema: %s", strings.TrimSpace(err.Error()))
		return s
	}
	p.checkDefaults(s.Type, s.Raw, n, path, reported)
	p.checkSplits(s, path)
	return s
}

// topParamRE matches the path of a top-level parameter's schema.
var topParamRE = regexp.MustCompile(`^params\.properties\.[A-Za-z][A-Za-z0-9_]*$`)

// splitPattern checks a `split:` annotation on its own: a top-level string
// parameter's, a regular expression with named groups.
func (p *parser) splitPattern(n *yaml.Node, path, schemaPath string) {
	s, ok := p.text(n, path)
	if !ok {
		return
	}
	if !topParamRE.MatchString(schemaPath) {
		p.errf(n, path, "split applies only to top-level parameters (params.properties.NAME)")
		return
	}
	re, err := regexp.Compile(s)
	if err != nil {
		p.errf(n, path, "invalid regular expression: %s", regexpError(err))
		return
	}
	named := 0
	for _, g := range re.SubexpNames()[1:] {
		if g != "" {
			named++
		}
	}
	if named == 0 {
		p.errf(n, path, "split needs named groups, one per parameter it fills: (?P<owner>[^/]+)/(?P<repo>[^/]+)")
	}
}

// checkSplits checks that the named groups of every `split:` name
// parameters of a scalar type, each at most once.
func (p *parser) checkSplits(s *Schema, path string) {
	if path != "params" {
		return
	}
	for _, prop := range s.Properties() {
		if prop.Split == "" {
			continue
		}
		re, err := regexp.Compile(prop.Split)
		if err != nil {
			continue // reported by splitPattern
		}
		at := path + ".properties." + prop.Name + ".split"
		seen := map[string]bool{}
		for _, g := range re.SubexpNames()[1:] {
			if g == "" {
				continue
			}
			if seen[g] {
				p.at(prop.SplitPos, at, "group %q is named twice", g)
				continue
			}
			seen[g] = true
			target := s.Property(g)
			if target == nil {
				var names []string
				for _, q := range s.Properties() {
					names = append(names, q.Name)
				}
				p.at(prop.SplitPos, at, "group %q names no parameter%s", g, didYouMean(g, names))
				continue
			}
			switch target.Type.Kind {
			case KindString, KindInteger, KindNumber, KindBoolean:
			default:
				p.at(prop.SplitPos, at, "group %q fills parameter %s of type %s; split fills strings, numbers and booleans", g, g, target.Type.Kind)
			}
		}
	}
}

// schemaType checks one (sub)schema and returns its typed view.
func (p *parser) schemaType(n *yaml.Node, path string, root bool) (*Type, *mapping) {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		p.errf(n, path, "boolean schemas are not supported: write a schema with a type")
		return Scalar(KindAny), nil
	}
	m := p.mapping(n, path, nil)
	if m == nil {
		return Scalar(KindAny), nil
	}
	for _, k := range m.keys {
		if why, bad := unsupportedKeywords[k]; bad {
			p.at(m.keyPos(k), path, "%s: %s", k, why)
		} else if !contains(schemaKeywords, k) {
			p.at(m.keyPos(k), path, "unknown JSON Schema keyword %q%s", k, didYouMean(k, schemaKeywords))
		}
	}
	if sn := m.get("$schema"); sn != nil {
		if s, ok := p.text(sn, m.sub("$schema")); ok && strings.TrimSuffix(s, "#") != draft07URL {
			p.errf(sn, m.sub("$schema"), "only draft-07 is supported (%s#)", draft07URL)
		}
	}

	kind := KindAny
	if tn := m.get("type"); tn != nil {
		switch {
		case tn.Kind == yaml.SequenceNode:
			p.errf(tn, m.sub("type"), "type must be a single type name: each property maps to one Go type (nullable and union types are not supported)")
		case isString(tn) && tn.Value == "null":
			p.errf(tn, m.sub("type"), `type "null" is not supported: make the property optional instead`)
		default:
			if s, ok := p.oneOf(tn, m.sub("type"), "type", typeNames); ok {
				kind = Kind(s)
			}
		}
	} else if root {
		kind = KindObject
	} else if !m.has("$ref") {
		p.errf(n, path, `missing "type" (one of %s)`, orList(typeNames))
	}
	checkApplies := kind != KindAny
	if root && kind != KindObject && kind != KindAny {
		p.errf(m.get("type"), m.sub("type"), "must be an object schema (type: object), got type %s", kind)
		kind, checkApplies = KindObject, false
	}
	if checkApplies {
		for _, k := range m.keys {
			if kinds, ok := keywordKinds[k]; ok && !containsKind(kinds, kind) {
				p.at(m.keyPos(k), path, "%s applies to %s, but this schema is of type %s", k, kindsText(kinds), kind)
			}
		}
	}
	t := &Type{Kind: kind}

	switch kind {
	case KindString:
		if fn := m.get("format"); fn != nil {
			if f, ok := p.name(fn, m.sub("format")); ok {
				if !contains(jsonFormats, f) {
					hint := didYouMean(f, jsonFormats)
					if hint == "" {
						hint = " (known formats: " + strings.Join(jsonFormats, ", ") + ")"
					}
					p.errf(fn, m.sub("format"), "unknown format %q%s", f, hint)
				}
				t.Format = f
			}
		}
		if pn := m.get("pattern"); pn != nil {
			if s, ok := p.text(pn, m.sub("pattern")); ok {
				if _, err := regexp.Compile(s); err != nil {
					p.errf(pn, m.sub("pattern"), "invalid regular expression: %s", regexpError(err))
				}
			}
		}
		if sn := m.get("split"); sn != nil {
			p.splitPattern(sn, m.sub("split"), path)
		}
	case KindArray:
		in := m.get("items")
		switch {
		case in == nil:
			p.errf(n, path, `an array needs "items" (the schema of its elements)`)
			t.Items = Scalar(KindAny)
		case in.Kind == yaml.SequenceNode:
			p.errf(in, m.sub("items"), "tuple items (a list of schemas) are not supported: give one schema for every element")
			t.Items = Scalar(KindAny)
		default:
			t.Items, _ = p.schemaType(in, m.sub("items"), false)
		}
	case KindObject:
		t.Props = p.schemaProps(m)
	}

	if en := m.get("enum"); en != nil {
		if items, ok := p.list(en, m.sub("enum")); ok {
			if len(items) == 0 {
				p.errf(en, m.sub("enum"), "enum must list at least one value")
			}
			for i, it := range items {
				v, ok := p.jsonValue(it, index(m.sub("enum"), i))
				if !ok {
					continue
				}
				if why := assignable(typeOf(v), Scalar(kind)); why != "" && kind != KindAny {
					p.errf(it, index(m.sub("enum"), i), "enum value %s is not %s", jsonText(v), article(Scalar(kind)))
				}
				t.Enum = append(t.Enum, v)
			}
		}
	}
	if cn := m.get("composed"); cn != nil {
		if _, ok := p.boolean(cn, m.sub("composed")); ok {
			if !topParamRE.MatchString(path) {
				p.errf(cn, m.sub("composed"), "composed applies only to top-level parameters (params.properties.NAME)")
			} else if !(kind == KindString || kind == KindInteger || kind == KindAny) {
				p.errf(cn, m.sub("composed"), "composed applies to strings and integers (the values the grounding check reads), but this schema is of type %s", kind)
			}
		}
	}
	if sn := m.get("secret"); sn != nil {
		if _, ok := p.boolean(sn, m.sub("secret")); ok && !(kind == KindString || kind == KindInteger || kind == KindNumber || kind == KindAny) {
			p.errf(sn, m.sub("secret"), "secret applies to strings and numbers, but this schema is of type %s", kind)
		}
	}
	if dn := m.get("description"); dn != nil {
		if v, ok := p.text(dn, m.sub("description")); ok {
			p.checkText(dn, m.sub("description"), "description", v)
		}
	}
	return t, m
}

// schemaProps reads an object schema's properties and required list.
func (p *parser) schemaProps(m *mapping) []*Property {
	var props []*Property
	if pn := m.get("properties"); pn != nil {
		pm := p.mapping(pn, m.sub("properties"), nil)
		goNames := map[string]string{}
		for _, name := range pmKeys(pm) {
			path := pm.sub(name)
			if !propRE.MatchString(name) {
				p.at(pm.keyPos(name), m.sub("properties"), "property name %q must be an identifier: a letter, then letters, digits or underscores", name)
			} else if reservedRoots[name] {
				p.at(pm.keyPos(name), m.sub("properties"), "property name %q is reserved (it is a template root: {{ %s.NAME }})", name, name)
			}
			gn := GoName(name)
			if other, dup := goNames[gn]; dup {
				p.at(pm.keyPos(name), m.sub("properties"), "properties %q and %q both become the Go name %s; rename one", other, name, gn)
			}
			goNames[gn] = name
			pt, sm := p.schemaType(pm.get(name), path, false)
			prop := &Property{Name: name, GoName: gn, Type: pt, Pos: pm.keyPos(name)}
			if sm != nil {
				if dn := sm.get("description"); isString(dn) {
					prop.Description = dn.Value
				}
				if cn := sm.get("composed"); cn != nil && cn.Kind == yaml.ScalarNode && cn.ShortTag() == "!!bool" {
					_ = cn.Decode(&prop.Composed)
				}
				if sn := sm.get("split"); sn != nil && isString(sn) {
					prop.Split, prop.SplitPos = sn.Value, p.pos(sn)
				}
				if sn := sm.get("secret"); sn != nil {
					var b bool
					if sn.Kind == yaml.ScalarNode && sn.ShortTag() == "!!bool" && sn.Decode(&b) == nil {
						prop.Secret = b
					}
				}
				if dn := sm.get("default"); dn != nil {
					if v, ok := p.jsonValue(dn, sm.sub("default")); ok {
						prop.Default, prop.HasDefault = v, true
						if why := assignable(typeOf(v), pt); why != "" {
							p.errf(dn, sm.sub("default"), "default %s is not %s", jsonText(v), article(pt))
						} else if len(pt.Enum) > 0 && !enumHas(pt.Enum, v) {
							p.errf(dn, sm.sub("default"), "default %s is not one of the enum values %s", jsonText(v), enumText(pt.Enum))
						}
					}
				}
				if cn := sm.get("consequential"); cn != nil {
					prop.Consequential = p.consequentialParam(cn, path, prop)
				}
			}
			props = append(props, prop)
		}
	}
	if rn := m.get("required"); rn != nil {
		items, _ := p.list(rn, m.sub("required"))
		seen := map[string]bool{}
		for i, it := range items {
			name, ok := p.name(it, index(m.sub("required"), i))
			if !ok {
				continue
			}
			if seen[name] {
				p.errf(it, index(m.sub("required"), i), "%q is listed twice", name)
			}
			seen[name] = true
			found := false
			for _, pr := range props {
				if pr.Name == name {
					pr.Required, found = true, true
				}
			}
			if !found {
				names := make([]string, len(props))
				for i, pr := range props {
					names[i] = pr.Name
				}
				p.errf(it, index(m.sub("required"), i), "required property %q is not declared in properties%s", name, didYouMean(name, names))
			}
		}
	}
	return props
}

func pmKeys(m *mapping) []string {
	if m == nil {
		return nil
	}
	return m.keys
}

func containsKind(kinds []Kind, k Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

func kindsText(kinds []Kind) string {
	var s []string
	for _, k := range kinds {
		switch k {
		case KindBoolean:
			s = append(s, "booleans")
		case KindString:
			s = append(s, "strings")
		case KindInteger:
			s = append(s, "integers")
		case KindNumber:
			s = append(s, "numbers")
		case KindArray:
			s = append(s, "arrays")
		case KindObject:
			s = append(s, "objects")
		}
	}
	return orList(s)
}

// validator returns the compiled schema, compiling it once.
func (s *Schema) validator() (*gojsonschema.Schema, error) {
	if s.compiled != nil {
		return s.compiled, nil
	}
	c, err := compileSchema(s.Raw)
	if err == nil {
		s.compiled = c
	}
	return c, err
}

// compileSchema compiles a draft-07 schema. Remote references are rejected
// before this point, so compiling never touches the network.
func compileSchema(raw map[string]any) (*gojsonschema.Schema, error) {
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.AutoDetect = false
	return sl.Compile(gojsonschema.NewGoLoader(raw))
}

// draft07MetaSchema is the JSON Schema draft-07 meta-schema.
const draft07MetaSchema = `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"http://json-schema.org/draft-07/schema#","title":"Core schema meta-schema","definitions":{"schemaArray":{"type":"array","minItems":1,"items":{"$ref":"#"}},"nonNegativeInteger":{"type":"integer","minimum":0},"nonNegativeIntegerDefault0":{"allOf":[{"$ref":"#/definitions/nonNegativeInteger"},{"default":0}]},"simpleTypes":{"enum":["array","boolean","integer","null","number","object","string"]},"stringArray":{"type":"array","items":{"type":"string"},"uniqueItems":true,"default":[]}},"type":["object","boolean"],"properties":{"$id":{"type":"string","format":"uri-reference"},"$schema":{"type":"string","format":"uri"},"$ref":{"type":"string","format":"uri-reference"},"$comment":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},"default":true,"readOnly":{"type":"boolean","default":false},"examples":{"type":"array","items":true},"multipleOf":{"type":"number","exclusiveMinimum":0},"maximum":{"type":"number"},"exclusiveMaximum":{"type":"number"},"minimum":{"type":"number"},"exclusiveMinimum":{"type":"number"},"maxLength":{"$ref":"#/definitions/nonNegativeInteger"},"minLength":{"$ref":"#/definitions/nonNegativeIntegerDefault0"},"pattern":{"type":"string","format":"regex"},"additionalItems":{"$ref":"#"},"items":{"anyOf":[{"$ref":"#"},{"$ref":"#/definitions/schemaArray"}],"default":true},"maxItems":{"$ref":"#/definitions/nonNegativeInteger"},"minItems":{"$ref":"#/definitions/nonNegativeIntegerDefault0"},"uniqueItems":{"type":"boolean","default":false},"contains":{"$ref":"#"},"maxProperties":{"$ref":"#/definitions/nonNegativeInteger"},"minProperties":{"$ref":"#/definitions/nonNegativeIntegerDefault0"},"required":{"$ref":"#/definitions/stringArray"},"additionalProperties":{"$ref":"#"},"definitions":{"type":"object","additionalProperties":{"$ref":"#"},"default":{}},"properties":{"type":"object","additionalProperties":{"$ref":"#"},"default":{}},"patternProperties":{"type":"object","additionalProperties":{"$ref":"#"},"propertyNames":{"format":"regex"},"default":{}},"dependencies":{"type":"object","additionalProperties":{"anyOf":[{"$ref":"#"},{"$ref":"#/definitions/stringArray"}]}},"propertyNames":{"$ref":"#"},"const":true,"enum":{"type":"array","items":true,"minItems":1,"uniqueItems":true},"type":{"anyOf":[{"$ref":"#/definitions/simpleTypes"},{"type":"array","items":{"$ref":"#/definitions/simpleTypes"},"minItems":1,"uniqueItems":true}]},"format":{"type":"string"},"contentMediaType":{"type":"string"},"contentEncoding":{"type":"string"},"if":{"$ref":"#"},"then":{"$ref":"#"},"else":{"$ref":"#"},"allOf":{"$ref":"#/definitions/schemaArray"},"anyOf":{"$ref":"#/definitions/schemaArray"},"oneOf":{"$ref":"#/definitions/schemaArray"},"not":{"$ref":"#"}},"default":true}`

var metaSchema = sync.OnceValues(func() (*gojsonschema.Schema, error) {
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.AutoDetect = false
	return sl.Compile(gojsonschema.NewStringLoader(draft07MetaSchema))
})

// metaValidate validates a schema against the draft-07 meta-schema.
func (p *parser) metaValidate(raw map[string]any, n *yaml.Node, path string, reported map[Pos]bool) {
	ms, err := metaSchema()
	if err != nil {
		p.errf(n, path, "internal error: cannot compile the draft-07 meta-schema: %v", err)
		return
	}
	res, err := ms.Validate(gojsonschema.NewGoLoader(raw))
	if err != nil {
		p.errf(n, path, "invalid JSON Schema: %v", err)
		return
	}
	for _, e := range res.Errors() {
		segs := contextSegments(e)
		at, atPath := nodeAt(n, path, segs)
		if reported[p.pos(at)] {
			continue
		}
		reported[p.pos(at)] = true
		p.errf(at, atPath, "invalid JSON Schema: %s", validationMessage(e))
	}
}

// contextSegments splits a validation error's JSON context into keys.
func contextSegments(e gojsonschema.ResultError) []string {
	ctx := e.Context()
	if ctx == nil {
		return nil
	}
	segs := strings.Split(ctx.String("\x00"), "\x00")
	if len(segs) > 0 && segs[0] == "(root)" {
		segs = segs[1:]
	}
	return segs
}

// nodeAt follows keys and list indexes from n, returning the deepest node
// found and its path.
func nodeAt(n *yaml.Node, path string, segs []string) (*yaml.Node, string) {
	n = resolve(n)
	for _, s := range segs {
		if n == nil {
			break
		}
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if resolve(n.Content[i]).Value == s {
					next = resolve(n.Content[i+1])
					path = join(path, s)
					break
				}
			}
		case yaml.SequenceNode:
			var i int
			if _, err := fmt.Sscanf(s, "%d", &i); err == nil && i >= 0 && i < len(n.Content) {
				next = resolve(n.Content[i])
				path = index(path, i)
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return n, path
}

// checkDefaults validates each property's default against its own schema.
func (p *parser) checkDefaults(t *Type, raw map[string]any, n *yaml.Node, path string, reported map[Pos]bool) {
	props, _ := raw["properties"].(map[string]any)
	for _, prop := range t.Props {
		sub, _ := props[prop.Name].(map[string]any)
		if sub == nil {
			continue
		}
		subPath := []string{"properties", prop.Name}
		if prop.HasDefault {
			if s, err := compileSchema(sub); err == nil {
				if res, err := s.Validate(gojsonschema.NewGoLoader(prop.Default)); err == nil {
					for _, e := range res.Errors() {
						at, atPath := nodeAt(n, path, append(append(subPath, "default"), contextSegments(e)...))
						if !reported[p.pos(at)] {
							reported[p.pos(at)] = true
							p.errf(at, atPath, "default %s", validationMessage(e))
						}
					}
				}
			}
		}
		if prop.Type.Kind == KindObject {
			dn, dpath := nodeAt(n, path, subPath)
			p.checkDefaults(prop.Type, sub, dn, dpath, reported)
		}
	}
}

// validateArgs checks literal arguments (of an example or test) against the
// params schema: unknown names (with suggestions), then JSON Schema
// validation with each error placed on the offending value.
func (p *parser) validateArgs(s *Schema, args map[string]any, n *yaml.Node, at Pos, path string) {
	names := s.Type.propNames()
	if m := resolve(n); m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			kn := resolve(m.Content[i])
			prop := s.Property(kn.Value)
			if prop == nil {
				hint := didYouMean(kn.Value, names)
				if hint == "" && len(names) > 0 {
					hint = " (parameters: " + strings.Join(names, ", ") + ")"
				} else if hint == "" {
					hint = " (the macro has no parameters)"
				}
				p.errf(kn, path, "unknown argument %q%s", kn.Value, hint)
				continue
			}
			p.unknownFields(m.Content[i+1], prop.Type, join(path, kn.Value))
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	compiled, err := s.validator()
	if err != nil {
		return // reported with params
	}
	res, err := compiled.Validate(gojsonschema.NewGoLoader(args))
	if err != nil {
		p.at(at, path, "cannot validate arguments: %v", err)
		return
	}
	for _, e := range res.Errors() {
		segs := contextSegments(e)
		if e.Type() == "additional_property_not_allowed" && len(segs) == 0 {
			continue // reported above with a suggestion
		}
		node, npath := nodeAt(n, path, segs)
		pos := p.pos(node)
		if node == nil {
			pos = at
		}
		msg := validationMessage(e)
		if e.Type() == "required" && len(segs) == 0 {
			msg = fmt.Sprintf("missing required argument %q", e.Details()["property"])
		}
		p.at(pos, npath, "%s", msg)
	}
}

// unknownFields reports keys of literal objects that the declared object
// types do not have (JSON Schema would accept them silently).
func (p *parser) unknownFields(n *yaml.Node, t *Type, path string) {
	n = resolve(n)
	if n == nil || t == nil {
		return
	}
	switch {
	case n.Kind == yaml.MappingNode && t.Kind == KindObject && len(t.Props) > 0:
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := resolve(n.Content[i])
			prop := t.Prop(kn.Value)
			if prop == nil {
				p.errf(kn, path, "unknown field %q%s", kn.Value, didYouMean(kn.Value, t.propNames()))
				continue
			}
			p.unknownFields(n.Content[i+1], prop.Type, join(path, kn.Value))
		}
	case n.Kind == yaml.SequenceNode && t.Kind == KindArray:
		for i, c := range n.Content {
			p.unknownFields(c, t.Items, index(path, i))
		}
	}
}

// validationMessage renders a gojsonschema error in this package's style.
func validationMessage(e gojsonschema.ResultError) string {
	d := e.Details()
	switch e.Type() {
	case "required":
		return fmt.Sprintf("missing required field %q", d["property"])
	case "invalid_type":
		return fmt.Sprintf("expected %s, got %s", aType(fmt.Sprint(d["expected"])), aType(fmt.Sprint(d["given"])))
	case "enum":
		return fmt.Sprintf("%s is not one of %s", jsonText(e.Value()), d["allowed"])
	case "format":
		return fmt.Sprintf("%s is not a valid %s", jsonText(e.Value()), d["format"])
	case "additional_property_not_allowed":
		return fmt.Sprintf("unknown field %q", d["property"])
	}
	return lowerFirst(e.Description())
}

func aType(t string) string {
	switch t {
	case "integer", "array", "object":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	if len(s) > n {
		if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// regexpError strips the "error parsing regexp: " prefix Go adds.
func regexpError(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
