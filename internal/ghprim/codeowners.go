package ghprim

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
)

// CodeownersArgs are codeowners_owners's arguments.
type CodeownersArgs struct {
	// Content is the CODEOWNERS file (empty: no file).
	Content string `json:"content"`
	// Encoding is "base64" (as the contents API returns it) or empty for
	// plain text.
	Encoding string `json:"encoding,omitempty"`
	// Files are repository paths.
	Files []string `json:"files"`
}

// CodeownersOwners returns, for each file, the owners of the last
// CODEOWNERS rule matching it (users and org/team, without @; e-mail owners
// dropped; empty when no rule matches).
//
//macrokit:primitive
func CodeownersOwners(_ context.Context, a CodeownersArgs) ([][]string, error) {
	text := a.Content
	switch strings.ToLower(a.Encoding) {
	case "", "utf-8", "utf8", "text":
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == ' ' {
				return -1
			}
			return r
		}, text))
		if err != nil {
			return nil, fmt.Errorf("CODEOWNERS content is not valid base64: %v", err)
		}
		text = string(b)
	default:
		return nil, fmt.Errorf("unknown CODEOWNERS encoding %q (want base64 or empty)", a.Encoding)
	}
	rules, err := ParseCodeowners(text)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(a.Files))
	for i, f := range a.Files {
		out[i] = rules.Owners(f)
		if out[i] == nil {
			out[i] = []string{}
		}
	}
	return out, nil
}

// inlineComment is a # that starts a comment after a pattern or owner.
var inlineComment = regexp.MustCompile(`[ \t]#`)

// CodeownersRule is one line of a CODEOWNERS file.
type CodeownersRule struct {
	Pattern string   // as written
	Owners  []string // users and org/team names without the @; e-mail owners are dropped
	re      *regexp.Regexp
}

// Codeowners is a parsed CODEOWNERS file: its rules in file order.
type Codeowners []CodeownersRule

// ParseCodeowners parses a CODEOWNERS file with GitHub's rules: one pattern
// and its owners per line, # comments, gitignore-style patterns (a leading
// / or an inner / anchors a pattern at the root, a trailing / matches a
// directory's contents, * does not cross /, ** does, and a pattern ending in
// /* matches only the directory's direct children). A line with a pattern
// it cannot read is an error naming the line.
func ParseCodeowners(text string) (Codeowners, error) {
	var rules Codeowners
	for n, line := range strings.Split(text, "\n") {
		if m := inlineComment.FindStringIndex(line); m != nil {
			line = line[:m[0]]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		re, err := codeownersPattern(fields[0])
		if err != nil {
			return nil, fmt.Errorf("CODEOWNERS line %d: %v", n+1, err)
		}
		r := CodeownersRule{Pattern: fields[0], re: re, Owners: []string{}}
		for _, o := range fields[1:] {
			if strings.HasPrefix(o, "@") && len(o) > 1 {
				r.Owners = append(r.Owners, o[1:])
			}
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// Owners returns the owners of the last rule matching path (nil when no
// rule matches; empty when the matching rule names no owner).
func (c Codeowners) Owners(path string) []string {
	path = strings.TrimPrefix(path, "/")
	for i := len(c) - 1; i >= 0; i-- {
		if c[i].re.MatchString(path) {
			return append([]string(nil), c[i].Owners...)
		}
	}
	return nil
}

// codeownersPattern compiles a CODEOWNERS pattern to a regexp over
// repository paths (no leading /).
func codeownersPattern(p string) (*regexp.Regexp, error) {
	if strings.HasPrefix(p, "!") || strings.Contains(p, "[") || strings.Contains(p, `\`) {
		return nil, fmt.Errorf("pattern %q: negation, character ranges and escapes are not supported by CODEOWNERS", p)
	}
	dir := strings.HasSuffix(p, "/")
	body := strings.Trim(p, "/")
	anchored := strings.HasPrefix(p, "/") || strings.Contains(body, "/")
	if body == "" {
		return nil, fmt.Errorf("pattern %q matches nothing", p)
	}
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(body); i++ {
		switch {
		case strings.HasPrefix(body[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(body[i:], "**"):
			b.WriteString(".*")
			i++
		case body[i] == '*':
			b.WriteString("[^/]*")
		case body[i] == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(body[i : i+1]))
		}
	}
	switch {
	case dir:
		b.WriteString("/.*")
	case strings.HasSuffix(body, "/*"):
		// docs/* owns docs/a.md but not docs/sub/b.md.
	default:
		b.WriteString("(?:/.*)?")
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
