package ghprim

import (
	"context"
	"regexp"
	"strings"
)

// Commit is a commit message read as a conventional commit.
type Commit struct {
	// Type is the lower-case type (feat, fix, docs, ...); empty when the
	// subject line has no "type(scope): " prefix.
	Type string `json:"type"`
	// Scope is the text in parentheses after the type, or empty.
	Scope string `json:"scope"`
	// Breaking is set by a "!" before the colon or a BREAKING CHANGE (or
	// BREAKING-CHANGE) footer.
	Breaking bool `json:"breaking"`
	// Subject is the first line without the prefix (the whole first line
	// when there is no prefix).
	Subject string `json:"subject"`
}

// ConventionalCommitArgs are conventional_commit's arguments.
type ConventionalCommitArgs struct {
	// Message is a full commit message.
	Message string `json:"message"`
}

// ConventionalCommit parses a commit message as a conventional commit
// (https://www.conventionalcommits.org).
//
//macrokit:primitive
func ConventionalCommit(_ context.Context, a ConventionalCommitArgs) (Commit, error) {
	return ParseConventional(a.Message), nil
}

var (
	conventionalRE = regexp.MustCompile(`^([A-Za-z]+)(?:\(([^()]*)\))?(!)?:[ \t]+(\S.*)$`)
	breakingRE     = regexp.MustCompile(`(?m)^BREAKING[ -]CHANGE:`)
)

// ParseConventional reads a commit message's first line as
// "type(scope)!: subject" (https://www.conventionalcommits.org) and its
// footers for BREAKING CHANGE. A message that does not follow the
// convention yields an empty Type and its first line as Subject.
func ParseConventional(message string) Commit {
	message = strings.ReplaceAll(message, "\r\n", "\n")
	first, body, _ := strings.Cut(strings.TrimLeft(message, " \t\n"), "\n")
	first = strings.TrimSpace(first)
	c := Commit{Subject: first, Breaking: breakingRE.MatchString(body)}
	if m := conventionalRE.FindStringSubmatch(first); m != nil {
		c.Type = strings.ToLower(m[1])
		c.Scope = strings.TrimSpace(m[2])
		c.Breaking = c.Breaking || m[3] == "!"
		c.Subject = strings.TrimSpace(m[4])
	}
	return c
}
