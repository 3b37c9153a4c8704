package editdist

// Distance is the optimal-string-alignment (restricted Damerau-Levenshtein)
// distance between a and b: insertions, deletions, substitutions and
// transpositions of adjacent characters each cost 1.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		// Suggestions are for short keys; don't spend time on long strings.
		if a == b {
			return 0
		}
		return 1 << 20
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Closest returns the candidate nearest to s within max edits (the first
// of equals), or "" when none is that close.
func Closest(s string, candidates []string, max int) string {
	best, bd := "", max+1
	for _, c := range candidates {
		if d := Distance(s, c); d < bd {
			best, bd = c, d
		}
	}
	return best
}
