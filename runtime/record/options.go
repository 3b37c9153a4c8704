package record

import (
	"fmt"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/internal/editdist"
)

// Unknown is an option naming a parameter the recording does not have,
// with the nearest name it has ("" when none is near).
type Unknown struct {
	Flag    string // --const, --secret or --param
	Name    string
	Suggest string
}

func (u Unknown) String() string {
	s := fmt.Sprintf("%s %s: the recording has no parameter %q", u.Flag, u.Name, u.Name)
	if u.Suggest != "" {
		s += fmt.Sprintf(" (did you mean %s?)", u.Suggest)
	}
	return s
}

// CheckOptions checks what can be checked of the options before anything
// is recorded: every name snake_case (the names Build gives), no
// parameter both constant and secret, no two renamed alike. The names
// themselves are known only once the recording is done.
func CheckOptions(o Options) error {
	bad := func(flag, n string) error {
		if n == "" {
			return &Error{Msg: flag + ": needs a parameter name"}
		}
		if snake(n) != n {
			return &Error{Msg: fmt.Sprintf("%s %s: a parameter name is snake_case, as record prints them (%s)", flag, n, snake(n))}
		}
		return nil
	}
	secret := map[string]bool{}
	for _, n := range o.Secrets {
		if err := bad("--secret", n); err != nil {
			return err
		}
		secret[n] = true
	}
	for _, n := range o.Consts {
		if err := bad("--const", n); err != nil {
			return err
		}
		if secret[n] {
			return &Error{Msg: fmt.Sprintf("--const %s and --secret %s: a secret is never written into the spec", n, n)}
		}
	}
	to := map[string]string{}
	for _, from := range sortedKeys(o.Rename) {
		n := o.Rename[from]
		if err := bad("--param", from); err != nil {
			return err
		}
		if n == "" || snake(n) != n {
			return &Error{Msg: fmt.Sprintf("--param %s=%s: a parameter name is snake_case (%s)", from, n, snake(n))}
		}
		if other, ok := to[n]; ok {
			return &Error{Msg: fmt.Sprintf("--param %s=%s and --param %s=%s: two parameters would be named %s", other, n, from, n, n)}
		}
		to[n] = from
	}
	return nil
}

// suggest is the known name nearest to n: a few edits away, scaled with
// the name's length.
func suggest(n string, known []string) string {
	limit := 2
	if len(n) >= 9 {
		limit = 3
	}
	return editdist.Closest(n, known, limit)
}

// Corrected returns o with each unknown name replaced by its suggestion,
// and whether every unknown had one.
func Corrected(o Options, unknown []Unknown) (Options, bool) {
	fix := map[string]string{}
	all := true
	for _, u := range unknown {
		if u.Suggest == "" {
			all = false
			continue
		}
		fix[u.Flag+"\x00"+u.Name] = u.Suggest
	}
	out := o
	repl := func(flag string, names []string) []string {
		var r []string
		for _, n := range names {
			if s, ok := fix[flag+"\x00"+n]; ok {
				n = s
			}
			r = append(r, n)
		}
		return r
	}
	out.Consts = repl("--const", o.Consts)
	out.Secrets = repl("--secret", o.Secrets)
	if o.Rename != nil {
		out.Rename = map[string]string{}
		for from, to := range o.Rename {
			if s, ok := fix["--param\x00"+from]; ok {
				from = s
			}
			out.Rename[from] = to
		}
	}
	return out, all
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unknownNames lists the options naming no parameter of params (a
// renamed parameter may also be named by its new name).
func unknownNames(o Options, params []*Param) (unknown []Unknown, known []string) {
	has := map[string]bool{}
	for _, p := range params {
		has[p.Name] = true
		known = append(known, p.Name)
	}
	renamed := map[string]bool{}
	for from, to := range o.Rename {
		if has[from] {
			renamed[to] = true
		}
	}
	check := func(flag, n string, allowRenamed bool) {
		if has[n] || (allowRenamed && renamed[n]) {
			return
		}
		unknown = append(unknown, Unknown{Flag: flag, Name: n, Suggest: suggest(n, known)})
	}
	for _, n := range o.Consts {
		check("--const", n, true)
	}
	for _, n := range o.Secrets {
		check("--secret", n, true)
	}
	for _, from := range sortedKeys(o.Rename) {
		check("--param", from, false)
	}
	return unknown, known
}

// unknownMsg is the one-line message of unknown names.
func unknownMsg(unknown []Unknown) string {
	var parts []string
	for _, u := range unknown {
		parts = append(parts, u.String())
	}
	return strings.Join(parts, "; ")
}
