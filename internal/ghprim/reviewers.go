package ghprim

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// RankReviewersArgs are rank_reviewers's arguments.
type RankReviewersArgs struct {
	// Owners are, per changed file, its code owners.
	Owners [][]string `json:"owners"`
	// Authors are, per group of commits (one group per changed file, or one
	// for the repository), the commits' author objects ({login, type}) or
	// null.
	Authors [][]any `json:"authors"`
	// Exclude lists logins never suggested (the pull request's author).
	Exclude []string `json:"exclude,omitempty"`
	// Max is how many to return (>= 1).
	Max int64 `json:"max"`
}

// RankReviewers ranks reviewer candidates: code owners of more changed
// files first, then recent committers on more of them; bots and excluded
// logins dropped.
//
//macrokit:primitive
func RankReviewers(_ context.Context, a RankReviewersArgs) (Ranking, error) {
	return rankReviewers(a)
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
	// Reviewers are the candidates, best first.
	Reviewers []Reviewer `json:"reviewers"`
	// Text is the reviewers as one line of text.
	Text string `json:"text"`
}

// rankReviewers counts, per candidate, the changed files it owns and the
// commit groups it authored in; sorts by owned files, then touched groups,
// then first appearance; and keeps the first max. Bots (type Bot or a login
// ending in [bot]), excluded logins (case-insensitive) and null authors are
// skipped.
func rankReviewers(a RankReviewersArgs) (Ranking, error) {
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
