package route

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/route/catalog"
)

// How clearly a part of a request must want its macro, as ratios of the
// catalog's scores for that part (docs/router.md "Two requests in one").
const (
	// intentLead: the part's best macro scores at least this much more
	// than its runner-up, so the question can name it.
	intentLead = 1.2
	// intentApart: the part's best macro scores at least this much more
	// than the macro another part wants, so the two parts do not ask for
	// the same thing in two phrasings ("take a look at PR 5 and tell me
	// what kind of change it is").
	intentApart = 1.5
)

// intentSep splits a request into clauses at the conjunctions that join
// two requests. Longer alternatives come first: Go's regexp takes the
// leftmost-first match, so "and then" is one separator, not "and" + "then".
var intentSep = regexp.MustCompile(`(?i)\s*(?:;|,?\s*\b(?:and\s+then|and\s+after\s+that|after\s+that|afterwards|and\s+also|as\s+well\s+as|then|plus|and)\b)\s*`)

// intentSeq matches the separators that put clauses in order.
var intentSeq = regexp.MustCompile(`(?i)\b(?:then|after|afterwards)\b`)

// Intent is one clause of a request and the macro it clearly asks for.
type Intent struct {
	Part  string `json:"part"`
	Macro string `json:"macro"`
}

// MultiIntent is a request that asks for two or more different macros.
type MultiIntent struct {
	// Intents are the clauses that each clearly want a macro, in the
	// request's order, one per macro (the first clause wanting it).
	Intents []Intent `json:"intents"`
	// Ordered is set when the request puts the first two in sequence
	// ("X, then Y"): the user has said which runs first.
	Ordered bool `json:"ordered"`
}

// Macros are the intents' macro names, in order.
func (mi *MultiIntent) Macros() []string {
	out := make([]string, len(mi.Intents))
	for i, in := range mi.Intents {
		out[i] = in.Macro
	}
	return out
}

// DetectIntents reports whether request asks for two or more different
// macros of c at once ("triage PR 5 and suggest reviewers"), or nil. The
// request is split at conjunctions (";", "and", "and also", "as well as",
// "plus", "then", "and then", "after that"); a clause wants a macro when
// the catalog's best macro for it leads its runner-up by intentLead, and
// two clauses want different macros when each one's macro also leads the
// other's macro, for that clause, by intentApart. Clauses that want no
// macro clearly ("and make it quick") are ignored, and so are clauses that
// want a macro an earlier clause wants ("turn on dark mode and the weekly
// report").
func DetectIntents(c *catalog.Catalog, request string) *MultiIntent {
	if c == nil || c.Len() < 2 {
		return nil
	}
	cuts := intentSep.FindAllStringIndex(request, -1)
	if len(cuts) == 0 {
		return nil
	}
	type clause struct {
		part   string
		sep    string // the separator before it
		scores map[string]float64
		best   string
	}
	var clauses []clause
	start, sep := 0, ""
	for i := 0; i <= len(cuts); i++ {
		end, next := len(request), ""
		if i < len(cuts) {
			end, next = cuts[i][0], request[cuts[i][0]:cuts[i][1]]
		}
		part := strings.TrimSpace(strings.Trim(request[start:end], ",.!? "))
		if i < len(cuts) {
			start = cuts[i][1]
		}
		if part == "" {
			sep += " " + next
			continue
		}
		cl := clause{part: part, sep: sep}
		sep = next
		sc := c.Scores(part)
		if len(sc) < 2 || sc[0].Score <= 0 || sc[0].Score < intentLead*sc[1].Score {
			clauses = append(clauses, cl)
			continue
		}
		cl.best = sc[0].Name
		cl.scores = make(map[string]float64, len(sc))
		for _, s := range sc {
			cl.scores[s.Name] = s.Score
		}
		clauses = append(clauses, cl)
	}
	// apart: clause a wants its macro, not b's, and b wants its own, not a's.
	apart := func(a, b clause) bool {
		return a.best != b.best && a.scores[a.best] >= intentApart*a.scores[b.best] && b.scores[b.best] >= intentApart*b.scores[a.best]
	}
	mi := &MultiIntent{}
	var wanted []int // clause indexes, one per macro
	sawSeq := false
	for i, cl := range clauses {
		if len(wanted) == 1 && intentSeq.MatchString(cl.sep) {
			sawSeq = true
		}
		if cl.best == "" {
			continue
		}
		distinct := true
		for _, j := range wanted {
			if !apart(clauses[j], cl) {
				distinct = false
				break
			}
		}
		if !distinct {
			continue
		}
		if len(wanted) == 1 {
			mi.Ordered = sawSeq
		}
		wanted = append(wanted, i)
		mi.Intents = append(mi.Intents, Intent{Part: cl.part, Macro: cl.best})
	}
	if len(mi.Intents) < 2 {
		return nil
	}
	return mi
}

// intentsCatalog is the router's catalog, built on first use (the same
// one retrieval uses above its threshold).
func (r *Router) intentsCatalog() *catalog.Catalog {
	r.once.Do(func() { r.catalog = catalog.New(r.Registry) })
	return r.catalog
}

// twoIntents decides a turn whose request asks for several macros, once
// the model's answer is judged and before anything runs (dispatch,
// salvage, its approval, escalation): it asks which to run first
// (DecisionAsked) and reports true. An ordered request whose first step
// is the model's pick runs as usual; then later, deferred by the caller,
// adds the steps left for later turns to the reply. Explore turns are an
// agent loop and never come here.
func (c *Conversation) twoIntents(res *TurnResult, request string, call *pendingCall, bail *BailOut) (asked bool, later func()) {
	r := c.r
	mi := DetectIntents(r.intentsCatalog(), request)
	if mi == nil {
		return false, nil
	}
	// The model's pick: its call, or the one call a flagged answer names
	// (an answer with several calls picked none).
	pick := ""
	switch {
	case call != nil:
		pick = call.Name
	case bail != nil && len(bail.Candidates) > 1:
	case bail != nil && bail.Tool != "":
		pick = bail.Tool
	case bail != nil && len(bail.Candidates) == 1:
		pick = bail.Candidates[0].Name
	}
	if alias := r.aliasOf(pick); alias != "" {
		pick = alias
	}
	again := res.Intents != nil // a fallback's answer to the same turn
	res.Intents = mi.Macros()
	parts := make([]string, len(mi.Intents))
	for i, in := range mi.Intents {
		parts[i] = in.Part
	}
	data := map[string]any{"macros": res.Intents, "parts": parts, "ordered": mi.Ordered, "picked": pick}
	if mi.Ordered && pick == mi.Intents[0].Macro {
		data["action"] = "first_step"
		r.event(c.turn, "multiple_intents", data)
		if again {
			return false, nil
		}
		rest := res.Intents[1:]
		note := "Not run yet (one macro per turn): " + strings.Join(rest, ", then ") + "; ask for it when you are ready."
		if len(rest) > 1 {
			note = strings.Replace(note, "ask for it", "ask for each", 1)
		}
		return false, func() {
			if res.Decision != DecisionAsked {
				res.Reply = strings.TrimSpace(res.Reply + "\n" + note)
			}
		}
	}
	if bail != nil {
		// The model's answer was flagged too: say so, as a halt would.
		res.BailOuts = append(res.BailOuts, *bail)
		r.event(c.turn, "bail_out", bailData(bail, res.Model))
	}
	data["action"] = "asked"
	r.event(c.turn, "multiple_intents", data)
	res.Decision = DecisionAsked
	res.Reply = intentsQuestion(r, mi)
	return true, nil
}

// intentsQuestion names every macro a request asks for, with its intent,
// and asks which to run.
func intentsQuestion(r *Router, mi *MultiIntent) string {
	named := make([]string, len(mi.Intents))
	for i, in := range mi.Intents {
		named[i] = in.Macro
		if m, ok := r.Registry.Lookup(in.Macro); ok && m.Intent != "" {
			named[i] += " (" + m.Intent + ")"
		}
	}
	list := named[0]
	join := " and "
	if mi.Ordered {
		join = ", then "
	}
	for i := 1; i < len(named); i++ {
		switch {
		case mi.Ordered:
			list += join + named[i]
		case i == len(named)-1:
			list += " and " + named[i]
		default:
			list += ", " + named[i]
		}
	}
	q := fmt.Sprintf("This asks for %s things: %s. Which should I run first? (one macro per turn)", countWord(len(named)), list)
	if mi.Ordered {
		q = fmt.Sprintf("This asks for %s things in order: %s. One macro runs per turn: shall I start with %s?", countWord(len(named)), list, mi.Intents[0].Macro)
	}
	return q + " Nothing ran."
}

func countWord(n int) string {
	if w := []string{2: "two", 3: "three", 4: "four", 5: "five"}; n < len(w) && w[n] != "" {
		return w[n]
	}
	return fmt.Sprint(n)
}
