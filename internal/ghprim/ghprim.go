// Package ghprim holds the Go primitives the GitHub macros of
// macros.d/github call for what the spec language cannot express: date
// arithmetic (days_ago), parsing a commit message (conventional_commit),
// decoding and matching a CODEOWNERS file (codeowners_owners), counting and
// ranking reviewer candidates (rank_reviewers), and downloading a workflow
// log that is not JSON (fetch_log_text).
//
// Signatures is what the spec checker needs (spec.Options.Primitives, used
// by `macrokit generate`, `check` and `lint`); Primitives is what the
// runtime calls (runtime.Dispatcher.Primitives). Both must list the same
// names: TestSignaturesMatchPrimitives keeps them in step.
package ghprim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/spec"
)

// Options configure the primitives.
type Options struct {
	// Client downloads logs (fetch_log_text); nil means a client with a 60s
	// timeout.
	Client *http.Client
	// Now is the clock of days_ago; nil means time.Now.
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) client() *http.Client {
	if o.Client != nil {
		return o.Client
	}
	return &http.Client{Timeout: 60 * time.Second}
}

func prop(name string, t *spec.Type, required bool, doc string) *spec.Property {
	return &spec.Property{Name: name, GoName: spec.GoName(name), Type: t, Required: required, Description: doc}
}

// Signatures returns the primitives' signatures for the spec checker
// (spec.Options.Primitives). Each call returns fresh values.
func Signatures() map[string]spec.Signature {
	tString := spec.Scalar(spec.KindString)
	tInteger := spec.Scalar(spec.KindInteger)
	tBoolean := spec.Scalar(spec.KindBoolean)
	tAny := spec.Scalar(spec.KindAny)
	tStrings := spec.ArrayOf(tString)
	return map[string]spec.Signature{
		"days_ago": {
			Params: []*spec.Property{prop("days", tInteger, true, "how many days back (>= 0)")},
			Result: tString,
			Doc:    "the instant that many days before now, as RFC 3339 in UTC (2024-01-31T08:00:00Z)",
		},
		"conventional_commit": {
			Params: []*spec.Property{prop("message", tString, true, "a full commit message")},
			Result: spec.ObjectOf(
				prop("type", tString, true, "the conventional-commit type, lower case (feat, fix, ...); empty when the subject is not conventional"),
				prop("scope", tString, true, "the scope in parentheses, or empty"),
				prop("breaking", tBoolean, true, "a ! after the type or a BREAKING CHANGE footer"),
				prop("subject", tString, true, "the first line without the type and scope prefix"),
			),
			Doc: "parse a commit message as a conventional commit (https://www.conventionalcommits.org)",
		},
		"codeowners_owners": {
			Params: []*spec.Property{
				prop("content", tString, true, "the CODEOWNERS file (empty: no file)"),
				prop("encoding", tString, false, `"base64" (as the contents API returns it) or empty for plain text`),
				prop("files", tStrings, true, "repository paths"),
			},
			Result: spec.ArrayOf(tStrings),
			Doc:    "for each file, the owners of the last CODEOWNERS rule matching it (users and org/team, without @; e-mail owners dropped)",
		},
		"rank_reviewers": {
			Params: []*spec.Property{
				prop("owners", spec.ArrayOf(tStrings), true, "per changed file, its code owners"),
				prop("authors", spec.ArrayOf(spec.ArrayOf(tAny)), true, "per group of commits (one group per changed file, or one for the repository), the commits' author objects ({login, type}) or null"),
				prop("exclude", tStrings, false, "logins never suggested (the pull request's author)"),
				prop("max", tInteger, true, "how many to return (>= 1)"),
			},
			Result: spec.ObjectOf(
				prop("reviewers", spec.ArrayOf(spec.ObjectOf(
					prop("login", tString, true, "a user login, or org/team for a team"),
					prop("owned_files", tInteger, true, "changed files it owns by CODEOWNERS"),
					prop("touched_files", tInteger, true, "commit groups it authored in"),
					prop("reason", tString, true, "why it is suggested, in words"),
				)), true, "best first"),
				prop("text", tString, true, "the reviewers as one line of text"),
			),
			Doc: "rank reviewer candidates: code owners of more changed files first, then recent committers on more of them; bots and excluded logins dropped",
		},
		"fetch_log_text": {
			Params: []*spec.Property{
				prop("url", tString, true, "the log URL (redirects are followed)"),
				prop("token", tString, false, "a bearer token for the first request (not sent across hosts on redirect)"),
				prop("max_chars", tInteger, true, "the most characters to return (>= 1)"),
			},
			Result: spec.ObjectOf(
				prop("text", tString, true, "the log text; when cut, its beginning and its end with a marker line between"),
				prop("total_chars", tInteger, true, "characters of the whole log"),
				prop("truncated", tBoolean, true, "whether text was cut to max_chars"),
				prop("files", tStrings, true, "the archive's files used, in order (empty for a plain-text log)"),
			),
			Doc: "download a log (plain text, or a zip archive of per-job logs as GitHub Actions serves them) and cut it to max_chars",
		},
	}
}

// Primitives returns the primitives for the runtime
// (runtime.Dispatcher.Primitives).
func Primitives(o Options) runtime.Primitives {
	return runtime.Primitives{
		"days_ago":            typed(func(_ context.Context, a daysAgoArgs) (string, error) { return daysAgo(o.now(), a.Days) }),
		"conventional_commit": typed(func(_ context.Context, a conventionalArgs) (Commit, error) { return ParseConventional(a.Message), nil }),
		"codeowners_owners":   typed(codeownersOwners),
		"rank_reviewers":      typed(func(_ context.Context, a rankArgs) (Ranking, error) { return rankReviewers(a) }),
		"fetch_log_text": typed(func(ctx context.Context, a fetchArgs) (LogText, error) {
			return fetchLogText(ctx, o.client(), a)
		}),
	}
}

// typed adapts a function of decoded arguments to a runtime.Primitive.
func typed[A, R any](f func(context.Context, A) (R, error)) runtime.Primitive {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("arguments: %v", err)
		}
		return f(ctx, a)
	}
}

type daysAgoArgs struct {
	Days int64 `json:"days"`
}

func daysAgo(now time.Time, days int64) (string, error) {
	if days < 0 || days > 100*366 {
		return "", fmt.Errorf("days must be between 0 and %d, got %d", 100*366, days)
	}
	return now.UTC().Add(-time.Duration(days) * 24 * time.Hour).Truncate(time.Second).Format(time.RFC3339), nil
}
