package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
)

// Segment is one step of a path after `$`.
type Segment struct {
	Key      string // an object key
	Index    int    // a list index, when IsIndex
	IsIndex  bool
	Wildcard bool // [*]
}

// Parse parses a path like "$.items[0].name" or "$.warnings[*].message".
// Error messages say how to write the path.
func Parse(s string) ([]Segment, error) {
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("JSON path %q must start with $ (e.g. $.id or $.items[0].name)", s)
	}
	var segs []Segment
	i := 1
	for i < len(s) {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			key := s[i+1 : j]
			if key == "" {
				return nil, fmt.Errorf("JSON path %q: empty key after '.' at offset %d", s, i)
			}
			if key == "*" {
				return nil, fmt.Errorf("JSON path %q: use [*] for every element of a list", s)
			}
			segs = append(segs, Segment{Key: key})
			i = j
		case '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("JSON path %q: unclosed '['", s)
			}
			inner := s[i+1 : i+j]
			switch {
			case inner == "*":
				segs = append(segs, Segment{Wildcard: true})
			case len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0]:
				segs = append(segs, Segment{Key: inner[1 : len(inner)-1]})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil {
					return nil, fmt.Errorf("JSON path %q: [%s] must be an index like [0] or [-1], [*], or a quoted key like [\"a b\"]", s, inner)
				}
				segs = append(segs, Segment{Index: n, IsIndex: true})
			}
			i += j + 1
		default:
			return nil, fmt.Errorf("JSON path %q: unexpected %q at offset %d (expected . or [)", s, s[i], i)
		}
	}
	return segs, nil
}
