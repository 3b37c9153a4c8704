package spec

import (
	"math"
	"sort"

	"gopkg.in/yaml.v3"
)

// jsonValue converts a YAML node to a JSON-compatible Go value:
// map[string]any, []any, string, int64, float64, bool or nil. Timestamps and
// other tagged scalars become strings.
func (p *parser) jsonValue(n *yaml.Node, path string) (any, bool) {
	n = resolve(n)
	if n == nil {
		return nil, true
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := p.mapping(n, path, nil)
		if m == nil {
			return nil, false
		}
		out := make(map[string]any, len(m.keys))
		ok := true
		for _, k := range m.keys {
			v, vok := p.jsonValue(m.get(k), m.sub(k))
			ok = ok && vok
			out[k] = v
		}
		return out, ok && len(m.keys) == len(n.Content)/2
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		ok := true
		for i, c := range n.Content {
			v, vok := p.jsonValue(c, index(path, i))
			ok = ok && vok
			out = append(out, v)
		}
		return out, ok
	case yaml.ScalarNode:
		return p.jsonScalar(n, path)
	}
	p.errf(n, path, "expected a value, got %s", describe(n))
	return nil, false
}

func (p *parser) jsonScalar(n *yaml.Node, path string) (any, bool) {
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			p.errf(n, path, "invalid boolean %q", n.Value)
			return nil, false
		}
		return b, true
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			p.errf(n, path, "integer %s is out of range", n.Value)
			return nil, false
		}
		return i, true
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			p.errf(n, path, "%s is not a finite number (JSON has no NaN or infinity)", n.Value)
			return nil, false
		}
		return f, true
	}
	p.checkCut(n, path)
	return n.Value, true
}

// value converts a YAML node to a Value whose strings are templates.
func (p *parser) value(n *yaml.Node, path string) *Value {
	n = resolve(n)
	if n == nil {
		return &Value{Kind: ValueNull}
	}
	v := &Value{Pos: p.pos(n)}
	switch n.Kind {
	case yaml.MappingNode:
		v.Kind = ValueMap
		m := p.mapping(n, path, nil)
		if m == nil {
			return v
		}
		for _, k := range m.keys {
			v.Map = append(v.Map, &Entry{Key: k, Value: p.value(m.get(k), m.sub(k)), Pos: m.keyPos(k)})
		}
	case yaml.SequenceNode:
		v.Kind = ValueList
		for i, c := range n.Content {
			v.List = append(v.List, p.value(c, index(path, i)))
		}
	case yaml.ScalarNode:
		x, ok := p.jsonScalar(n, path)
		if !ok {
			v.Kind = ValueNull
			return v
		}
		switch x := x.(type) {
		case nil:
			v.Kind = ValueNull
		case bool:
			v.Kind, v.Bool = ValueBool, x
		case int64:
			v.Kind, v.Int = ValueInt, x
		case float64:
			v.Kind, v.Float = ValueFloat, x
		case string:
			v.Kind, v.Str = ValueString, p.templateOf(n, x, path)
		}
	default:
		v.Kind = ValueNull
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
