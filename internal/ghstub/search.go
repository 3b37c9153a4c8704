package ghstub

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// query is a parsed issue-search query: the subset of GitHub's syntax the
// macros use. A qualifier the stub does not know is an error (422), so a
// macro that builds a query GitHub would read differently fails loudly.
type query struct {
	repo          string // owner/name, lower case
	kind          string // "issue", "pr" or "" (both)
	state         string // "open", "closed" or ""
	inTitle       bool
	created       []func(time.Time) bool
	comments      []func(int) bool
	labels        []string // all required
	excludeLabels []string
	terms         []string // lower case, each a substring of the title (and body unless in:title)
}

// tokens splits a query on spaces, keeping double-quoted parts together
// (-label:"good first issue" is one token, without the quotes).
func tokens(q string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inQuote, has := false, false
	for _, r := range q {
		switch {
		case r == '"':
			inQuote, has = !inQuote, true
		case (r == ' ' || r == '\t' || r == '\n') && !inQuote:
			if has {
				out = append(out, cur.String())
			}
			cur.Reset()
			has = false
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unbalanced quote in %q", q)
	}
	if has {
		out = append(out, cur.String())
	}
	return out, nil
}

func parseQuery(q string) (*query, error) {
	toks, err := tokens(q)
	if err != nil {
		return nil, err
	}
	out := &query{}
	for _, t := range toks {
		neg := strings.HasPrefix(t, "-")
		key, val, ok := strings.Cut(strings.TrimPrefix(t, "-"), ":")
		if !ok || val == "" || !isQualifier(key) {
			if term := strings.ToLower(strings.Trim(t, ".,;:!?()[]'`")); term != "" {
				out.terms = append(out.terms, term)
			}
			continue
		}
		if neg && key != "label" {
			return nil, fmt.Errorf("ghstub supports only -label, not -%s", key)
		}
		switch key {
		case "repo":
			out.repo = strings.ToLower(val)
		case "is", "type":
			switch val {
			case "issue":
				out.kind = "issue"
			case "pr", "pull-request":
				out.kind = "pr"
			case "open", "closed":
				out.state = val
			default:
				return nil, fmt.Errorf("unsupported %s:%s", key, val)
			}
		case "state":
			if val != "open" && val != "closed" {
				return nil, fmt.Errorf("unsupported state:%s", val)
			}
			out.state = val
		case "in":
			if val != "title" {
				return nil, fmt.Errorf("ghstub supports only in:title, not in:%s", val)
			}
			out.inTitle = true
		case "label":
			if neg {
				out.excludeLabels = append(out.excludeLabels, val)
			} else {
				out.labels = append(out.labels, val)
			}
		case "created":
			f, err := timeFilter(val)
			if err != nil {
				return nil, err
			}
			out.created = append(out.created, f)
		case "comments":
			f, err := intFilter(val)
			if err != nil {
				return nil, err
			}
			out.comments = append(out.comments, f)
		default:
			return nil, fmt.Errorf("ghstub does not support the %s: qualifier", key)
		}
	}
	if out.repo == "" {
		return nil, fmt.Errorf("ghstub needs a repo: qualifier")
	}
	return out, nil
}

// isQualifier reports whether key is one of GitHub's issue-search
// qualifiers (those the stub rejects included).
func isQualifier(key string) bool {
	switch key {
	case "repo", "is", "type", "state", "in", "label", "created", "comments",
		"updated", "closed", "author", "assignee", "mentions", "commenter", "involves",
		"no", "milestone", "project", "org", "user", "reason", "sort", "language", "linked":
		return true
	}
	return false
}

// operator splits a comparison qualifier value: "<=3" -> ("<=", "3").
func operator(v string) (string, string) {
	for _, op := range []string{"<=", ">=", "<", ">"} {
		if rest, ok := strings.CutPrefix(v, op); ok {
			return op, rest
		}
	}
	return "=", v
}

func timeFilter(v string) (func(time.Time) bool, error) {
	op, rest := operator(v)
	t, err := time.Parse(time.RFC3339, rest)
	if err != nil {
		if t, err = time.Parse("2006-01-02", rest); err != nil {
			return nil, fmt.Errorf("created:%s: want a date (2006-01-02) or an RFC 3339 time", v)
		}
	}
	switch op {
	case "<":
		return func(x time.Time) bool { return x.Before(t) }, nil
	case "<=":
		return func(x time.Time) bool { return !x.After(t) }, nil
	case ">":
		return func(x time.Time) bool { return x.After(t) }, nil
	case ">=":
		return func(x time.Time) bool { return !x.Before(t) }, nil
	}
	return func(x time.Time) bool { return x.Equal(t) }, nil
}

func intFilter(v string) (func(int) bool, error) {
	op, rest := operator(v)
	n, err := strconv.Atoi(rest)
	if err != nil {
		return nil, fmt.Errorf("comments:%s: want a number", v)
	}
	switch op {
	case "<":
		return func(x int) bool { return x < n }, nil
	case "<=":
		return func(x int) bool { return x <= n }, nil
	case ">":
		return func(x int) bool { return x > n }, nil
	case ">=":
		return func(x int) bool { return x >= n }, nil
	}
	return func(x int) bool { return x == n }, nil
}

func hasLabel(is *issue, name string) bool {
	for _, l := range is.Labels {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}

func (q *query) match(is *issue) bool {
	switch {
	case q.kind == "issue" && is.PR != nil, q.kind == "pr" && is.PR == nil:
		return false
	case q.state != "" && is.State != q.state:
		return false
	}
	for _, f := range q.created {
		if !f(is.Created) {
			return false
		}
	}
	for _, f := range q.comments {
		if !f(is.Comments) {
			return false
		}
	}
	for _, l := range q.labels {
		if !hasLabel(is, l) {
			return false
		}
	}
	for _, l := range q.excludeLabels {
		if hasLabel(is, l) {
			return false
		}
	}
	text := strings.ToLower(is.Title)
	if !q.inTitle {
		text += "\n" + strings.ToLower(is.Body)
	}
	for _, t := range q.terms {
		if !strings.Contains(text, t) {
			return false
		}
	}
	return true
}

// searchIssues serves GET /search/issues: q, sort (created, updated,
// comments; default: newest first), order (asc, desc), per_page (at most
// 100) and page.
func (s *Server) searchIssues(w http.ResponseWriter, r *http.Request, _ *repo) {
	qv := r.URL.Query()
	q, err := parseQuery(qv.Get("q"))
	if err != nil {
		unprocessable(w, err.Error())
		return
	}
	rp := s.repos[q.repo]
	var hits []*issue
	if rp != nil {
		for _, is := range rp.Issues {
			if q.match(is) {
				hits = append(hits, is)
			}
		}
	}
	asc := qv.Get("order") == "asc"
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if qv.Get("sort") == "comments" && a.Comments != b.Comments {
			return (a.Comments < b.Comments) == asc
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created) == asc
		}
		return (a.Number < b.Number) == asc
	})
	from, to := page(r, len(hits), 100)
	items := []any{}
	for _, is := range hits[from:to] {
		items = append(items, s.issueJSON(rp, is))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(hits), "incomplete_results": false, "items": items})
}
