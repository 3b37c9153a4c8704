package spec

import (
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
	"gopkg.in/yaml.v3"
)

// ConsequentialParam is the `consequential:` annotation of a top-level
// parameter that turns a dry run into a write or widens an effect (apply,
// confirm, force, a max above its default). A call whose value departs
// from the default without the request asking for it runs with the
// default instead (runtime.Macro.Unasked; docs/router.md).
type ConsequentialParam struct {
	// Phrases ask for a departure: asked_by as written, or with
	// `consequential: true` the parameter's name words for a boolean
	// ("apply"). A number or string derives none: its name says which knob,
	// not which value, and the value written in the request asks for
	// itself (runtime.Macro.Unasked).
	Phrases []string
	// Derived is set for `consequential: true`.
	Derived bool
	Pos     Pos // where the annotation is written
}

var consequentialKeys = []string{"asked_by"}

// consequentialParam reads a property's `consequential:` annotation (n)
// and checks it against the property: top level, a boolean, number or
// string with a default, no secret. kind's fit is checked with the other
// type-specific keywords (keywordKinds).
func (p *parser) consequentialParam(n *yaml.Node, path string, prop *Property) *ConsequentialParam {
	n = resolve(n)
	at := path + ".consequential"
	c := &ConsequentialParam{Pos: p.pos(n)}
	switch {
	case n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		var on bool
		if n.Decode(&on) != nil || !on {
			return nil // consequential: false says nothing
		}
		c.Derived = true
		if prop.Type.Kind == KindBoolean {
			c.Phrases = []string{vocab.NameWords(prop.Name)}
		}
	case n != nil && n.Kind == yaml.MappingNode:
		m := p.mapping(n, at, consequentialKeys)
		if m == nil || !m.require("asked_by") {
			return nil
		}
		c.Phrases = p.askedBy(m.get("asked_by"), m.sub("asked_by"))
	default:
		p.errf(n, at, "expected true or a mapping {asked_by: [phrases]}, got %s", describe(n))
		return nil
	}
	switch {
	case !topParamRE.MatchString(path):
		p.errf(n, at, "consequential applies only to top-level parameters (params.properties.NAME)")
	case prop.Secret:
		p.errf(n, at, "a secret parameter cannot be consequential: the router tells the user and logs the value it resets")
	case !prop.HasDefault && isConsequentialKind(prop.Type.Kind):
		p.errf(n, at, "consequential needs a default: the value a call gets when the request does not ask (apply: false, max: 200)")
	}
	return c
}

func isConsequentialKind(k Kind) bool {
	return k == KindBoolean || k == KindInteger || k == KindNumber || k == KindString
}

// askedBy reads asked_by: a non-empty list of at most MaxAskedBy phrases,
// each of at most MaxAskedByWords words, none listed twice (by its words).
func (p *parser) askedBy(n *yaml.Node, path string) []string {
	items, ok := p.list(n, path)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.errf(n, path, `asked_by must list at least one phrase a request says to ask for it ("apply", "for real")`)
		return nil
	}
	if len(items) > MaxAskedBy {
		p.errf(items[MaxAskedBy], path, "asked_by lists %d phrases, more than %d: keep the ones people say; a longer list asks for everything", len(items), MaxAskedBy)
	}
	var out []string
	seen := map[string]string{}
	for i, it := range items {
		ip := index(path, i)
		s, ok := p.text(it, ip)
		if !ok {
			continue
		}
		words := vocab.AskWords(s)
		key := strings.Join(words, " ")
		switch {
		case len(words) == 0:
			p.errf(it, ip, "a phrase needs at least one word (letters or digits), got %q", s)
			continue
		case len(words) > MaxAskedByWords:
			p.errf(it, ip, "a phrase of %d words, more than %d: a request says it in fewer", len(words), MaxAskedByWords)
			continue
		}
		if first, dup := seen[key]; dup {
			p.errf(it, ip, "phrase %q is listed twice (as %q): phrases match by their words, case-folded", s, first)
			continue
		}
		seen[key] = s
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// checkConsequentialRisk reports consequential parameters of a read
// macro: a read changes nothing, so either the parameter makes the macro
// write (and its risk is wrong, which lets salvage run it unapproved) or it
// is not consequential.
func (c *checker) checkConsequentialRisk() {
	if c.s.Risk != RiskRead || c.s.Params == nil {
		return
	}
	for _, prop := range c.s.Params.Properties() {
		if prop.Consequential != nil {
			c.errf(prop.Consequential.Pos, "params.properties."+prop.Name+".consequential",
				"%s is risk: read, which changes nothing, so no parameter of it is consequential; mark the macro act or dangerous if %s makes it write, or remove consequential", c.s.Name, prop.Name)
		}
	}
}
