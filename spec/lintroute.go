package spec

import (
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/macrokit/macrokit-go/internal/terms"
)

// Lint rules about routing: what a model needs to pick the right macro and
// bind the right arguments (docs/router.md, "What lint checks for routing").
const (
	LintSimilarIntent    = "similar-intent"    // two intents share most of their content words
	LintSharedExample    = "shared-example"    // the same example request in two macros
	LintExampleElsewhere = "example-elsewhere" // an example reads more like another macro
	LintUnguessableParam = "unguessable-param" // nothing a user says names or shows the parameter
)

// similarIntentJaccard is how alike two intents may be, as the Jaccard
// index of their content-word sets (internal/terms: stop words out,
// stemmed), before lint calls them near-duplicates. The reference macros'
// closest pair is 0.33 (add_customer / find_customer: customer, name,
// email); "search customers by name" against "search customers by name or
// email" is 0.75. At 0.6 a short intent may differ from another by one
// content word in five ("list open issues" / "list closed issues", 0.5,
// stays legal).
const similarIntentJaccard = 0.6

// elsewhereMinShared is how many content words an example must share with
// another macro's name and intent, and more than with its own, before lint
// says it reads like the other macro: one shared word is too often an
// accident (a repository called billing-api and an intent saying API).
const elsewhereMinShared = 2

// routeText is a macro's text as the routing rules compare it.
type routeText struct {
	s      *Spec
	intent map[string]bool // content words of the intent
	own    map[string]bool // content words of the name and intent
	says   []map[string]bool
}

func termSet(s string, camel bool) map[string]bool {
	m := map[string]bool{}
	for _, t := range terms.List(s, camel) {
		m[t] = true
	}
	return m
}

// lintRouting adds the cross-spec routing findings of set.
func lintRouting(set *Set, add func(s *Spec, pos Pos, path, rule, format string, args ...any)) {
	texts := make([]*routeText, len(set.Specs))
	for i, s := range set.Specs {
		rt := &routeText{s: s, intent: termSet(s.Intent, false), own: termSet(strings.ReplaceAll(s.Name, "_", " ")+" "+s.Intent, false)}
		for _, ex := range s.Examples {
			rt.says = append(rt.says, phrasing(ex))
		}
		texts[i] = rt
	}
	exact := func(s *Spec) string { return strings.ToLower(strings.Join(strings.Fields(s.Intent), " ")) }
	for i, b := range texts {
		// Near-duplicate intents: reported once, on the later macro (name
		// order), naming the earlier; identical ones are LintIntent's.
		for _, a := range texts[:i] {
			if len(a.intent) == 0 || exact(a.s) == exact(b.s) {
				continue
			}
			j, shared := jaccard(a.intent, b.intent)
			if j >= similarIntentJaccard {
				add(b.s, b.s.IntentPos, "intent", LintSimilarIntent,
					"intent is close to %s's (%s): %d of their %d content words are shared (%s); a model cannot tell them apart: say what differs",
					a.s.Name, a.s.File, len(shared), len(union(a.intent, b.intent)), strings.Join(shared, ", "))
			}
		}
	}
	// The same example request in two macros: reported on every later
	// occurrence, naming the first.
	type firstSay struct {
		s *Spec
		i int
	}
	seen := map[string]firstSay{}
	shared := map[*Example]bool{}
	for _, rt := range texts {
		for i, ex := range rt.s.Examples {
			key := strings.Join(terms.List(ex.Say, false), " ")
			if key == "" {
				continue
			}
			f, dup := seen[key]
			if !dup {
				seen[key] = firstSay{rt.s, i}
			} else if f.s != rt.s {
				shared[ex] = true
				add(rt.s, ex.Pos, index("examples", i)+".say", LintSharedExample,
					"example %q is also an example of %s (%s, examples[%d]): a model cannot learn from it which macro is meant",
					ex.Say, f.s.Name, f.s.File, f.i)
			}
		}
	}
	// An example that shares more words with another macro's name and
	// intent than with its own teaches the model to pick the other one. A
	// shared example is reported once, above.
	for _, rt := range texts {
		for i, ex := range rt.s.Examples {
			if shared[ex] {
				continue
			}
			say := rt.says[i]
			_, own := jaccard(say, rt.own)
			var best *routeText
			var bestShared []string
			for _, o := range texts {
				if o == rt {
					continue
				}
				if _, sh := jaccard(say, o.own); len(sh) >= elsewhereMinShared && len(sh) > len(own) && len(sh) > len(bestShared) {
					best, bestShared = o, sh
				}
			}
			if best != nil {
				add(rt.s, ex.Pos, index("examples", i)+".say", LintExampleElsewhere,
					"example %q shares %d content words with %s (%s: %s) and %d with this macro's name and intent: reword the example or the intent",
					ex.Say, len(bestShared), best.s.Name, best.s.File, strings.Join(bestShared, ", "), len(own))
			}
		}
	}
}

// phrasing is an example's content words without those of its argument
// values: "find duplicates of issue 17 in my-team/mobile-app" compares as
// "find duplicat issu", since the values are the user's, not the macro's.
func phrasing(ex *Example) map[string]bool {
	say := termSet(ex.Say, false)
	for _, v := range ex.Args {
		for _, s := range leafStrings(v) {
			for t := range termSet(s, false) {
				delete(say, t)
			}
		}
	}
	return say
}

// jaccard returns |a∩b| / |a∪b| and the shared words, sorted.
func jaccard(a, b map[string]bool) (float64, []string) {
	var shared []string
	for t := range a {
		if b[t] {
			shared = append(shared, t)
		}
	}
	sort.Strings(shared)
	u := len(a) + len(b) - len(shared)
	if u == 0 {
		return 0, nil
	}
	return float64(len(shared)) / float64(u), shared
}

func union(a, b map[string]bool) map[string]bool {
	u := make(map[string]bool, len(a)+len(b))
	for t := range a {
		u[t] = true
	}
	for t := range b {
		u[t] = true
	}
	return u
}

// lintParamsGuessable adds a finding for each parameter a model has nothing
// to bind from: a required parameter, or one an example sets, whose name's
// words appear in none of the intent, the description, the parameter's
// description and the examples' requests, and whose example values no
// request mentions. Such a parameter is filled by guesswork (the upstream
// runs' commonest miss: a day count bound to max instead of minDaysOpen).
//
// A macro without examples is left to LintExamples: adding them is the fix
// for both, and one finding per cause keeps lint worth reading.
func lintParamsGuessable(s *Spec, add func(s *Spec, pos Pos, path, rule, format string, args ...any)) {
	if len(s.Examples) == 0 {
		return
	}
	text := s.Intent + " " + s.Description
	for _, ex := range s.Examples {
		text += " " + ex.Say
	}
	for _, p := range s.Params.Properties() {
		if p.Composed {
			continue // the model writes it (a title, a message), nothing to bind
		}
		bound := false
		for _, ex := range s.Examples {
			if _, ok := ex.Args[p.Name]; ok {
				bound = true
			}
		}
		if !p.Required && !bound {
			continue
		}
		if nameMentioned(p.Name, termSet(text+" "+p.Description, false)) || valueMentioned(s, p.Name) {
			continue
		}
		add(s, p.Pos, "params.properties."+p.Name, LintUnguessableParam,
			"a model cannot tell what to bind to %q: the words of its name (%s) are in no intent, description or example request, and no request mentions a value the examples bind to it; say it in the parameter's description or an example",
			p.Name, strings.Join(terms.List(p.Name, true), " "))
	}
}

// nameMentioned reports whether every content word of a parameter's name
// (split at underscores and camelCase humps) is in text, a word also
// counting when it abbreviates one there (max for maximum, char for
// characters).
func nameMentioned(name string, text map[string]bool) bool {
	words := terms.List(name, true)
	if len(words) == 0 {
		return true // a name of stop words and digits: nothing to look for
	}
	for _, w := range words {
		if text[w] {
			continue
		}
		found := false
		if len(w) >= 3 {
			for t := range text {
				if strings.HasPrefix(t, w) {
					found = true
					break
				}
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// valueMentioned reports whether some example's request says the value it
// binds to the parameter: its words, in order, among the request's words
// ("grace@navy.example", 120, "web-app" as "web app").
func valueMentioned(s *Spec, param string) bool {
	for _, ex := range s.Examples {
		v, ok := ex.Args[param]
		if !ok {
			continue
		}
		say := words(ex.Say)
		for _, leaf := range leafStrings(v) {
			if w := words(leaf); len(w) > 0 && containsRun(say, w) {
				return true
			}
		}
	}
	return false
}

// words splits s into lower-cased, stemmed runs of letters and digits, stop
// words kept (a value may be one: "on", "all").
func words(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out = append(out, string(terms.Stem([]byte(f))))
	}
	return out
}

func containsRun(hay, run []string) bool {
	for i := 0; i+len(run) <= len(hay); i++ {
		match := true
		for j := range run {
			if hay[i+j] != run[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// leafStrings renders an argument value's scalars as text; booleans and
// nulls have no words a request would say.
func leafStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case int64:
		return []string{strconv.FormatInt(v, 10)}
	case int:
		return []string{strconv.Itoa(v)}
	case float64:
		return []string{strconv.FormatFloat(v, 'f', -1, 64)}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, leafStrings(e)...)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			out = append(out, leafStrings(v[k])...)
		}
		return out
	}
	return nil
}
