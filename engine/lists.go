package engine

// TestIDCounts is a page's repeated elements: how many elements carry
// each data-testid, and the DOM depth of each one's first element.
type TestIDCounts struct {
	Counts map[string]int
	Depths map[string]int
}

// ChangedList names the data-testid list whose size changed between two
// states of a page — e.g. the table a Save click added a row to — for a
// list_count_delta check. It prefers a list (two or more members) to a
// lone element such as a toast, then the outermost (a row, not the cells
// inside it), then the longest; ties go by name, so the choice is stable.
// ok is false when no count changed.
func ChangedList(before, after TestIDCounts) (testid string, ok bool) {
	depth := func(k string) int {
		if d, ok := after.Depths[k]; ok {
			return d
		}
		return before.Depths[k]
	}
	size := func(k string) int { return max(after.Counts[k], before.Counts[k]) }
	best := ""
	better := func(k string) bool {
		if best == "" {
			return true
		}
		if lk, lb := size(k) > 1, size(best) > 1; lk != lb {
			return lk
		}
		if dk, db := depth(k), depth(best); dk != db {
			return dk < db
		}
		if sk, sb := size(k), size(best); sk != sb {
			return sk > sb
		}
		return k < best
	}
	for _, ids := range []map[string]int{after.Counts, before.Counts} {
		for k := range ids {
			if before.Counts[k] != after.Counts[k] && better(k) {
				best = k
			}
		}
	}
	return best, best != ""
}
