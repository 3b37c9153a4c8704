package refdata

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a semantic version (semver.org 2.0.0). Bundle versions carry
// no build metadata: two builds of one version would be indistinguishable
// by precedence, and name@version must name one artifact.
type Version struct {
	Major, Minor, Patch uint64
	// Pre holds the dot-separated pre-release identifiers ("rc", "1").
	Pre []string
}

// ParseVersion parses MAJOR.MINOR.PATCH[-PRERELEASE], without a "v" prefix
// or "+build" suffix.
func ParseVersion(s string) (Version, error) {
	var v Version
	core, pre, hasPre := strings.Cut(s, "-")
	if strings.Contains(s, "+") {
		return v, fmt.Errorf("version %q: build metadata (+...) is not allowed", s)
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH", s)
	}
	nums := [3]*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		n, err := parseNumeric(p)
		if err != nil {
			return v, fmt.Errorf("version %q: %v", s, err)
		}
		*nums[i] = n
	}
	if hasPre {
		if pre == "" {
			return v, fmt.Errorf("version %q: empty pre-release", s)
		}
		for _, id := range strings.Split(pre, ".") {
			if err := checkPreID(id); err != nil {
				return v, fmt.Errorf("version %q: %v", s, err)
			}
			v.Pre = append(v.Pre, id)
		}
	}
	return v, nil
}

func parseNumeric(p string) (uint64, error) {
	if p == "" {
		return 0, fmt.Errorf("empty number")
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return 0, fmt.Errorf("%q is not a number", p)
		}
	}
	if len(p) > 1 && p[0] == '0' {
		return 0, fmt.Errorf("%q has a leading zero", p)
	}
	n, err := strconv.ParseUint(p, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is too large", p)
	}
	return n, nil
}

func checkPreID(id string) error {
	if id == "" {
		return fmt.Errorf("empty pre-release identifier")
	}
	numeric := true
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
			numeric = false
		default:
			return fmt.Errorf("pre-release identifier %q: only [0-9A-Za-z-]", id)
		}
	}
	if numeric && len(id) > 1 && id[0] == '0' {
		return fmt.Errorf("pre-release identifier %q has a leading zero", id)
	}
	return nil
}

// String formats the version.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Pre) > 0 {
		s += "-" + strings.Join(v.Pre, ".")
	}
	return s
}

// Compare returns -1, 0 or +1 by semver precedence.
func (v Version) Compare(w Version) int {
	for _, p := range [3][2]uint64{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if p[0] != p[1] {
			if p[0] < p[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(v.Pre) == 0 && len(w.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(w.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(w.Pre); i++ {
		if c := comparePreID(v.Pre[i], w.Pre[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(v.Pre) < len(w.Pre):
		return -1
	case len(v.Pre) > len(w.Pre):
		return 1
	}
	return 0
}

func comparePreID(a, b string) int {
	an, aerr := strconv.ParseUint(a, 10, 64)
	bn, berr := strconv.ParseUint(b, 10, 64)
	switch {
	case aerr == nil && berr == nil:
		switch {
		case an < bn:
			return -1
		case an > bn:
			return 1
		}
		return 0
	case aerr == nil:
		return -1 // numeric identifiers sort before alphanumeric ones
	case berr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func (v Version) sameTuple(w Version) bool {
	return v.Major == w.Major && v.Minor == w.Minor && v.Patch == w.Patch
}

// Range is a set of versions, written the way npm writes them:
//
//	1.2.3  =1.2.3  v1.2.3     exactly
//	>1.2.3 >=1.2 <2 <=1.4.x   comparisons (missing parts are wildcards)
//	^1.2.3                    >=1.2.3 <2.0.0 (^0.2.3: <0.3.0; ^0.0.3: <0.0.4)
//	~1.2.3  ~1.2              >=1.2.3 <1.3.0 (~1: <2.0.0)
//	1.x  1.2.*  1  *  x       x-ranges
//	>=1.2 <1.5                space: all must hold
//	^1 || ^2                  ||: any set may hold
//
// A pre-release version is in the range only if some comparator of the
// matching set names the same MAJOR.MINOR.PATCH with a pre-release, so ^1.2.3
// never selects 2.0.0-rc.1 or 1.3.0-beta.
type Range struct {
	src  string
	sets [][]comparator
}

type comparator struct {
	op string // "=", ">", ">=", "<", "<="
	v  Version
}

func (c comparator) match(v Version) bool {
	d := v.Compare(c.v)
	switch c.op {
	case "=":
		return d == 0
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	}
	return false
}

// ParseRange parses a range (see Range).
func ParseRange(s string) (Range, error) {
	r := Range{src: strings.TrimSpace(s)}
	if r.src == "" {
		return r, fmt.Errorf("empty range")
	}
	for _, alt := range strings.Split(r.src, "||") {
		fields := joinOperators(strings.Fields(alt))
		if len(fields) == 0 {
			return r, fmt.Errorf("range %q: empty alternative around ||", s)
		}
		var set []comparator
		for _, f := range fields {
			cs, err := parseComparator(f)
			if err != nil {
				return r, fmt.Errorf("range %q: %v", s, err)
			}
			set = append(set, cs...)
		}
		r.sets = append(r.sets, set)
	}
	return r, nil
}

// joinOperators glues a lone operator to the version after it (">= 1.2").
func joinOperators(fields []string) []string {
	out := fields[:0:0]
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Trim(f, "<>=^~") == "" && i+1 < len(fields) {
			f += fields[i+1]
			i++
		}
		out = append(out, f)
	}
	return out
}

// MustParseRange is ParseRange for constants; it panics on an error.
func MustParseRange(s string) Range {
	r, err := ParseRange(s)
	if err != nil {
		panic(err)
	}
	return r
}

// String returns the range as written.
func (r Range) String() string { return r.src }

// Match reports whether v is in the range.
func (r Range) Match(v Version) bool {
	for _, set := range r.sets {
		if matchSet(set, v) {
			return true
		}
	}
	return false
}

func matchSet(set []comparator, v Version) bool {
	for _, c := range set {
		if !c.match(v) {
			return false
		}
	}
	if len(v.Pre) == 0 {
		return true
	}
	for _, c := range set {
		if len(c.v.Pre) > 0 && c.v.sameTuple(v) {
			return true
		}
	}
	return false
}

// partial is a version with possibly missing (wildcard) parts.
type partial struct {
	n   [3]uint64
	set int // how many of major, minor, patch are given (0..3)
	pre []string
}

func parsePartial(s string) (partial, error) {
	var p partial
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "=")
	if strings.Contains(s, "+") {
		return p, fmt.Errorf("%q: build metadata is not allowed", s)
	}
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) > 3 || core == "" {
		return p, fmt.Errorf("%q is not a version", s)
	}
	wild := false
	for i, part := range parts {
		if part == "x" || part == "X" || part == "*" {
			wild = true
			continue
		}
		if wild {
			return p, fmt.Errorf("%q: a number after a wildcard", s)
		}
		n, err := parseNumeric(part)
		if err != nil {
			return p, fmt.Errorf("%q is not a version: %v", s, err)
		}
		p.n[i] = n
		p.set = i + 1
	}
	if hasPre {
		if p.set < 3 {
			return p, fmt.Errorf("%q: a pre-release needs a full version", s)
		}
		if pre == "" {
			return p, fmt.Errorf("%q: empty pre-release", s)
		}
		for _, id := range strings.Split(pre, ".") {
			if err := checkPreID(id); err != nil {
				return p, fmt.Errorf("%q: %v", s, err)
			}
			p.pre = append(p.pre, id)
		}
	}
	return p, nil
}

func (p partial) floor() Version {
	return Version{Major: p.n[0], Minor: p.n[1], Patch: p.n[2], Pre: p.pre}
}

// next returns the lowest version above every version p matches (p must
// have set >= 1): 1.x -> 2.0.0, 1.2.x -> 1.3.0.
func (p partial) next() Version {
	if p.set == 1 {
		return Version{Major: p.n[0] + 1}
	}
	return Version{Major: p.n[0], Minor: p.n[1] + 1}
}

// lowestPre is the pre-release floor used by exclusive upper bounds, so <2.0.0
// also excludes 2.0.0-rc.1 (as npm does: <2.0.0-0).
var lowestPre = []string{"0"}

func upper(v Version) comparator {
	return comparator{op: "<", v: Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch, Pre: lowestPre}}
}

func parseComparator(f string) ([]comparator, error) {
	op := ""
	for _, o := range []string{">=", "<=", ">", "<", "=", "^", "~"} {
		if strings.HasPrefix(f, o) {
			op, f = o, f[len(o):]
			break
		}
	}
	if f == "" {
		return nil, fmt.Errorf("operator %q without a version", op)
	}
	p, err := parsePartial(f)
	if err != nil {
		return nil, err
	}
	all := []comparator{{op: ">=", v: Version{}}}
	switch op {
	case "", "=":
		switch p.set {
		case 0:
			return all, nil
		case 3:
			return []comparator{{op: "=", v: p.floor()}}, nil
		}
		return []comparator{{op: ">=", v: p.floor()}, upper(p.next())}, nil
	case ">=":
		if p.set == 0 {
			return all, nil
		}
		return []comparator{{op: ">=", v: p.floor()}}, nil
	case ">":
		switch p.set {
		case 0:
			return []comparator{{op: "<", v: Version{Pre: lowestPre}}}, nil // nothing
		case 3:
			return []comparator{{op: ">", v: p.floor()}}, nil
		}
		return []comparator{{op: ">=", v: p.next()}}, nil
	case "<":
		switch p.set {
		case 0:
			return []comparator{{op: "<", v: Version{Pre: lowestPre}}}, nil // nothing
		case 3:
			if len(p.pre) > 0 {
				return []comparator{{op: "<", v: p.floor()}}, nil
			}
			return []comparator{upper(p.floor())}, nil
		}
		return []comparator{upper(p.floor())}, nil
	case "<=":
		switch p.set {
		case 0:
			return all, nil
		case 3:
			return []comparator{{op: "<=", v: p.floor()}}, nil
		}
		return []comparator{upper(p.next())}, nil
	case "~":
		switch p.set {
		case 0:
			return all, nil
		case 1:
			return []comparator{{op: ">=", v: p.floor()}, upper(p.next())}, nil
		}
		return []comparator{{op: ">=", v: p.floor()}, upper(Version{Major: p.n[0], Minor: p.n[1] + 1})}, nil
	case "^":
		if p.set == 0 {
			return all, nil
		}
		lo := comparator{op: ">=", v: p.floor()}
		switch {
		case p.n[0] > 0 || p.set == 1:
			return []comparator{lo, upper(Version{Major: p.n[0] + 1})}, nil
		case p.n[1] > 0 || p.set == 2:
			return []comparator{lo, upper(Version{Minor: p.n[1] + 1})}, nil
		}
		return []comparator{lo, upper(Version{Patch: p.n[2] + 1})}, nil
	}
	return nil, fmt.Errorf("unknown operator %q", op)
}
