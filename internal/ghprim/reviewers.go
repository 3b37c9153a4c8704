package ghprim

import (
	"fmt"
	"sort"
	"strings"
)

type rankArgs struct {
	Owners  [][]string `json:"owners"`
	Authors [][]any    `json:"authors"`
	Exclude []string   `json:"exclude"`
	Max     int64      `json:"max"`
}

// Reviewer is one suggested reviewer.
type Reviewer struct {
	// Login is a user login, or org/team for a team named in CODEOWNERS.
	Login string `json:"login"`
	// OwnedFiles counts the changed files it owns by CODEOWNERS.
	OwnedFiles int64 `json:"owned_files"`
	// TouchedFiles counts the commit groups (changed files, or the
	// repository's recent history) it authored commits in.
	TouchedFiles int64 `json:"touched_files"`
	// Reason says why, in words.
	Reason string `json:"reason"`
}

// Ranking is the result of rank_reviewers.
type Ranking struct {
	Reviewers []Reviewer `json:"reviewers"` // best first
	Text      string     `json:"text"`      // the reviewers on one line
}

// rankReviewers counts, per candidate, the changed files it owns and the
// commit groups it authored in; sorts by owned files, then touched groups,
// then first appearance; and keeps the first max. Bots (type Bot or a login
// ending in [bot]), excluded logins (case-insensitive) and null authors are
// skipped.
func rankReviewers(a rankArgs) (Ranking, error) {
	if a.Max < 1 {
		return Ranking{}, fmt.Errorf("max must be at least 1, got %d", a.Max)
	}
	excluded := map[string]bool{}
	for _, e := range a.Exclude {
		excluded[strings.ToLower(strings.TrimPrefix(e, "@"))] = true
	}
	type cand struct {
		Reviewer
		first int
	}
	byKey := map[string]*cand{}
	var order []*cand
	get := func(login string) *cand {
		k := strings.ToLower(login)
		if c := byKey[k]; c != nil {
			return c
		}
		c := &cand{Reviewer: Reviewer{Login: login}, first: len(order)}
		byKey[k] = c
		order = append(order, c)
		return c
	}
	skip := func(login string) bool {
		l := strings.ToLower(login)
		return l == "" || excluded[l] || strings.HasSuffix(l, "[bot]")
	}
	for _, owners := range a.Owners {
		seen := map[string]bool{}
		for _, o := range owners {
			o = strings.TrimPrefix(o, "@")
			if skip(o) || seen[strings.ToLower(o)] {
				continue
			}
			seen[strings.ToLower(o)] = true
			get(o).OwnedFiles++
		}
	}
	for _, group := range a.Authors {
		seen := map[string]bool{}
		for _, au := range group {
			login, bot := authorLogin(au)
			if bot || skip(login) || seen[strings.ToLower(login)] {
				continue
			}
			seen[strings.ToLower(login)] = true
			get(login).TouchedFiles++
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		x, y := order[i], order[j]
		if x.OwnedFiles != y.OwnedFiles {
			return x.OwnedFiles > y.OwnedFiles
		}
		if x.TouchedFiles != y.TouchedFiles {
			return x.TouchedFiles > y.TouchedFiles
		}
		return x.first < y.first
	})
	if int64(len(order)) > a.Max {
		order = order[:a.Max]
	}
	out := Ranking{Reviewers: []Reviewer{}}
	var parts []string
	for _, c := range order {
		r := c.Reviewer
		r.Reason = reason(r)
		out.Reviewers = append(out.Reviewers, r)
		parts = append(parts, "@"+r.Login+" ("+r.Reason+")")
	}
	out.Text = strings.Join(parts, ", ")
	if out.Text == "" {
		out.Text = "no candidates: no code owner and no recent committer other than the author"
	}
	return out, nil
}

// authorLogin reads a commit author as the REST API returns it: an object
// with login and type, or null for an e-mail not linked to an account. A
// plain string is taken as a login.
func authorLogin(v any) (login string, bot bool) {
	switch x := v.(type) {
	case string:
		return x, false
	case map[string]any:
		login, _ = x["login"].(string)
		typ, _ := x["type"].(string)
		return login, typ == "Bot"
	}
	return "", false
}

func reason(r Reviewer) string {
	var parts []string
	if r.OwnedFiles > 0 {
		parts = append(parts, fmt.Sprintf("code owner of %d changed file%s", r.OwnedFiles, plural(r.OwnedFiles)))
	}
	if r.TouchedFiles > 0 {
		parts = append(parts, fmt.Sprintf("recent commits on %d of the changed paths", r.TouchedFiles))
	}
	return strings.Join(parts, "; ")
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
