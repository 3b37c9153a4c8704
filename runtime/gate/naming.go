package gate

import (
	"regexp"
	"strings"
)

// naming draws a macro's verb and object from the requests (their most
// common first word, with its particle: "sign in"; fillers and parameter
// values left out) and from the workflow's URLs (the last fixed path
// segment, when the requests use it; else the requests' next word).
func (in *inference) naming() (verb, noun string, article bool) {
	counts := map[string]int{}
	var words [][]string
	for k := range in.g.samples {
		ws := requestWords(in.templ(k, in.g.samples[k].request).litText())
		words = append(words, ws)
		if len(ws) > 1 && particles[ws[1]] {
			counts[ws[0]+" "+ws[1]]++
		} else if len(ws) > 0 {
			counts[ws[0]]++
		}
	}
	for w, c := range counts {
		if c > counts[verb] || (c == counts[verb] && (verb == "" || w < verb)) {
			verb = w
		}
	}
	seg := ""
	for _, st := range in.w.steps {
		if st.url == nil {
			continue
		}
		for _, sg := range st.url.segs {
			if sg.slot < 0 && routeWord.MatchString(sg.lit) && !apiWords[strings.ToLower(sg.lit)] {
				seg = strings.ToLower(sg.lit)
			}
		}
		if seg != "" {
			break
		}
	}
	all := map[string]bool{}
	for _, ws := range words {
		for _, w := range ws {
			all[w] = true
		}
	}
	one := singular(seg)
	switch {
	case seg != "" && all[one]:
		return verb, one, true
	case seg != "" && all[seg]:
		return verb, seg, false // the requests use the plural: "list orders"
	}
	if len(words) > 0 {
		skip := len(strings.Fields(verb))
		for _, w := range words[0][min(skip, len(words[0])):] {
			if !stopWords[w] && len(w) > 2 {
				return verb, w, true
			}
		}
	}
	if seg == "" || strings.Contains(verb, " ") {
		return verb, "", false // "sign in" says it all
	}
	return verb, one, true
}

var (
	routeWord = regexp.MustCompile(`^[A-Za-z][A-Za-z_-]*[A-Za-z]$`)
	particles = map[string]bool{"in": true, "up": true, "out": true, "off": true, "on": true, "back": true, "over": true, "down": true}
	apiWords  = map[string]bool{"api": true, "rest": true, "app": true, "admin": true, "index": true, "www": true, "graphql": true}
	fillers   = map[string]bool{"please": true, "can": true, "could": true, "would": true, "you": true, "i": true,
		"want": true, "to": true, "need": true, "lets": true, "let": true, "s": true, "us": true, "kindly": true, "go": true,
		"ahead": true, "and": true, "just": true, "now": true, "hey": true, "hi": true, "d": true, "like": true, "ll": true}
	stopWords = map[string]bool{"the": true, "a": true, "an": true, "to": true, "for": true, "with": true, "of": true,
		"on": true, "in": true, "at": true, "and": true, "or": true, "my": true, "our": true, "new": true, "me": true,
		"as": true, "by": true, "from": true, "is": true, "it": true, "this": true, "that": true, "their": true,
		"his": true, "her": true, "all": true, "some": true}
)

// requestWords are a request's lower-case ASCII words, leading fillers
// ("please", "can you") dropped.
func requestWords(s string) []string {
	var ws []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r < 'a' || r > 'z' }) {
		if len(ws) == 0 && fillers[f] {
			continue
		}
		ws = append(ws, f)
	}
	return ws
}

// intent says what the macro does: "add a customer with a name, an email
// and a tier".
func (in *inference) intent(verb, noun string, article bool) string {
	var b strings.Builder
	switch {
	case verb == "" && noun == "":
		b.WriteString("do the recorded workflow")
	case verb == "":
		b.WriteString("handle " + noun)
	default:
		b.WriteString(verb)
		if noun != "" {
			b.WriteString(" ")
			if article {
				b.WriteString(indefinite(noun) + " ")
			}
			b.WriteString(noun)
		}
	}
	var ps []string
	for _, p := range in.params {
		w := strings.ReplaceAll(p.Name, "_", " ")
		ps = append(ps, indefinite(w)+" "+w)
	}
	switch len(ps) {
	case 0:
	case 1:
		b.WriteString(" with " + ps[0])
	default:
		b.WriteString(" with " + strings.Join(ps[:len(ps)-1], ", ") + " and " + ps[len(ps)-1])
	}
	return b.String()
}

func indefinite(w string) string {
	for _, p := range []string{"use", "usa", "usu", "uni", "uri", "url", "eu", "one"} {
		if strings.HasPrefix(w, p) {
			return "a" // said "you..."
		}
	}
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}
