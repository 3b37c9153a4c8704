package gate

import (
	"net/http"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// maxDistinct bounds the distinct values remembered per slot: enough to
// tell "few" (an enum) from "many".
const maxDistinct = 12

// sample is one kept occurrence of a group.
type sample struct {
	values  []string
	obs     []stepObs
	request string
	session string
	turn    int64
}

// slotAgg summarises a slot's values over every occurrence (not just the
// kept samples), in constant space.
type slotAgg struct {
	distinct []string
	many     bool // more than maxDistinct distinct values

	notEmail, notDate, notDateTime, notInt, notNum, notMonth, notURI bool
	anyEmpty, anyRedacted                                            bool
}

var (
	monthRE = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`)
	floatRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)\.[0-9]+$`)
)

func (a *slotAgg) add(v string) {
	if !a.many {
		found := false
		for _, d := range a.distinct {
			if d == v {
				found = true
				break
			}
		}
		if !found {
			if len(a.distinct) == maxDistinct {
				a.many = true
				a.distinct = nil
			} else {
				a.distinct = append(a.distinct, v)
			}
		}
	}
	if v == "" {
		a.anyEmpty = true
	}
	if strings.Contains(v, redact.Marker) {
		a.anyRedacted = true
	}
	if !a.notEmail && !looksEmail(v) {
		a.notEmail = true
	}
	if !a.notDate {
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			a.notDate = true
		}
	}
	if !a.notDateTime {
		if _, err := time.Parse(time.RFC3339, v); err != nil || !strings.Contains(v, "T") {
			a.notDateTime = true
		}
	}
	if !a.notInt && !isInt(v) {
		a.notInt = true
	}
	if !a.notNum && !isInt(v) && !floatRE.MatchString(v) {
		a.notNum = true
	}
	if !a.notMonth && !monthRE.MatchString(v) {
		a.notMonth = true
	}
	if !a.notURI && !isURI(v) {
		a.notURI = true
	}
}

func (a *slotAgg) varies() bool { return a.many || len(a.distinct) > 1 }

// looksEmail is the cheap test run on every value: one @, a dotted domain
// with a two-letter (or longer) top level, nothing an address cannot hold
// unquoted. isEmail confirms it on the kept samples.
func looksEmail(v string) bool {
	at := strings.IndexByte(v, '@')
	if at <= 0 || strings.LastIndexByte(v, '@') != at || strings.ContainsAny(v, " \t\r\n<>(),;:\"[]\\") {
		return false
	}
	dom := v[at+1:]
	dot := strings.LastIndexByte(dom, '.')
	return dot > 0 && len(dom)-dot-1 >= 2
}

// isEmail is what the spec checker's validator accepts as format: email,
// for an address written plainly.
func isEmail(v string) bool {
	addr, err := mail.ParseAddress(v)
	return looksEmail(v) && err == nil && addr.Address == v
}

// isInt accepts canonical integers short enough not to be ids or phone
// numbers in disguise.
func isInt(v string) bool {
	if len(v) == 0 || len(v) > 9 {
		return false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == v
}

func isURI(v string) bool {
	if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
		return false
	}
	return !strings.ContainsAny(v, "\\ ") && len(v) > len("https://")
}

// group is one workflow shape and what was seen of it.
type group struct {
	key      string
	order    int
	tmpl     *workflow // the first occurrence: steps and slot metadata
	samples  []sample
	count    int
	sessions map[string]struct{}
	aggs     []slotAgg
	findings []int
	methods  map[string]bool
	origins  [][]string // per step, distinct origins (bounded)
	macros   map[string]bool
}

func newGroup(w *workflow, order int) *group {
	return &group{key: w.key, order: order, tmpl: w, sessions: map[string]struct{}{},
		aggs: make([]slotAgg, len(w.slots)), methods: map[string]bool{}, origins: make([][]string, len(w.steps)),
		macros: map[string]bool{}}
}

// add counts one occurrence; the first MaxSamples are kept whole.
func (g *group) add(w *workflow, session string, turn int64, req string, finding int, macros []string, maxSamples int) {
	g.count++
	g.sessions[session] = struct{}{}
	for i, v := range w.values {
		g.aggs[i].add(v)
	}
	for _, m := range w.methods {
		g.methods[m] = true
	}
	for i := range w.steps {
		if o := w.obs[i].origin; o != "" && len(g.origins[i]) < maxDistinct && !contains(g.origins[i], o) {
			g.origins[i] = append(g.origins[i], o)
		}
	}
	for _, m := range macros {
		if len(g.macros) < maxDistinct {
			g.macros[m] = true
		}
	}
	if finding >= 0 {
		g.findings = append(g.findings, finding)
	}
	if len(g.samples) < maxSamples {
		g.samples = append(g.samples, sample{values: w.values, obs: w.obs, request: req, session: session, turn: turn})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writes says whether the workflow changed something: a request other than
// GET, HEAD or OPTIONS was sent.
func (g *group) writes() bool {
	for m := range g.methods {
		switch m {
		case "", http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			return true
		}
	}
	return false
}
