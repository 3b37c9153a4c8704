package demosite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// InjectRule turns fault modes on for the requests whose submitted data has
// an email at a domain, the way a real app fails for some records and not
// others: a batch can mix faulty rows into good ones without a site-wide
// mode. See docs/demo-site.md, "Fault injection by submitted data".
type InjectRule struct {
	// EmailDomain matches a submitted email "...@EmailDomain", compared
	// case-insensitively (no subdomains).
	EmailDomain string
	// Modes are the fault modes a match turns on, as in Options.Inject.
	Modes string
}

// ParseInjectRules reads rules written DOMAIN=MODES, separated by commas or
// given one per element, e.g. "flaky.example=flaky" and
// "fake.example=fakeSuccess"; several modes of one rule join with "+"
// ("slow.example=slow+flaky"). Unlike ?inject=, an unknown mode name is an
// error here, since the rules come from an operator's flags.
func ParseInjectRules(specs ...string) ([]InjectRule, error) {
	var out []InjectRule
	for _, spec := range specs {
		for _, f := range strings.Split(spec, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			domain, modes, ok := strings.Cut(f, "=")
			domain = strings.TrimPrefix(strings.TrimSpace(domain), "@")
			if !ok || domain == "" || strings.ContainsAny(domain, "@ \t") || strings.TrimSpace(modes) == "" {
				return nil, fmt.Errorf("demosite: inject rule %q: want DOMAIN=MODES, like fake.example=fakeSuccess", f)
			}
			for _, m := range strings.Split(modes, "+") {
				if parseInject(m) == 0 {
					return nil, fmt.Errorf("demosite: inject rule %q: unknown mode %q (slow, flaky, fakeSuccess, error500)", f, m)
				}
			}
			out = append(out, InjectRule{EmailDomain: domain, Modes: strings.TrimSpace(modes)})
		}
	}
	return out, nil
}

// String returns the rule as ParseInjectRules reads it.
func (r InjectRule) String() string { return r.EmailDomain + "=" + r.Modes }

// ruleModes returns the modes of every rule some email in values matches.
func ruleModes(rules []InjectRule, values []string) inject {
	var m inject
	for _, v := range values {
		_, domain, ok := strings.Cut(strings.TrimSpace(v), "@")
		if !ok {
			continue
		}
		for _, r := range rules {
			if strings.EqualFold(domain, r.EmailDomain) {
				m |= parseInject(r.Modes)
			}
		}
	}
	return m
}

// bodyInject returns the modes the rules give a write request by the
// strings of its JSON body, and leaves the body readable again for the
// handler. A body that is not a JSON object matches nothing (the handler
// reports it).
func (s *Site) bodyInject(r *http.Request) inject {
	if len(s.opts.InjectRules) == 0 || !isWrite(r.Method) || r.Body == nil {
		return 0
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if err != nil {
		return 0
	}
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return 0
	}
	var values []string
	for _, v := range fields {
		if str, ok := v.(string); ok {
			values = append(values, str)
		}
	}
	return ruleModes(s.opts.InjectRules, values)
}

// rulesAttr is the rules as pages read them from <html data-inject-rules>:
// "domain=mode+mode domain=mode".
func rulesAttr(rules []InjectRule) string {
	var out []string
	for _, r := range rules {
		out = append(out, strings.ToLower(r.EmailDomain)+"="+strings.ReplaceAll(parseInject(r.Modes).String(), " ", "+"))
	}
	return strings.Join(out, " ")
}
