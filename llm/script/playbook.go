package script

import (
	"regexp"
	"strconv"
)

// Playbook is a parsed, validated script for the scripted [Model]. It is
// immutable once parsed, so one playbook may back many [Model]s
// running concurrently. See docs/llm.md for the format.
type Playbook struct {
	name     string
	rules    []*rule
	summary  *template
	fallback *template // nil: a miss is llm.ErrNoRule
}

// Name is the playbook's `name`, or, when the file has none, the source
// name given to Parse without its directory and YAML extension.
func (pb *Playbook) Name() string {
	if pb == nil {
		return ""
	}
	return pb.name
}

// rule is one validated rule.
type rule struct {
	re      *regexp.Regexp
	call    string // tool to call; "" for a reply or text-only rule
	args    []arg
	reply   *template
	text    *template
	summary *template
}

// arg is one named argument (or mapping entry) of a rule's call.
type arg struct {
	key string
	val value
}

// match returns the first rule matching input and adds its captures to
// vars: by name and by number (0 is the whole match; groups that did not
// take part are ""). With duplicate names the first group that took part
// wins.
func (pb *Playbook) match(input string, vars map[string]string) *rule {
	for _, r := range pb.rules {
		loc := r.re.FindStringSubmatchIndex(input)
		if loc == nil {
			continue
		}
		took := map[string]bool{}
		for i, name := range r.re.SubexpNames() {
			v, ok := "", loc[2*i] >= 0
			if ok {
				v = input[loc[2*i]:loc[2*i+1]]
			}
			vars[strconv.Itoa(i)] = v
			if name != "" && !took[name] {
				vars[name] = v
				took[name] = ok
			}
		}
		return r
	}
	return nil
}
