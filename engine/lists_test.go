package engine

import "testing"

// TestChangedList: the list a list_count_delta should watch — a list over
// a lone toast, the row over its cells, the longer list, then by name.
func TestChangedList(t *testing.T) {
	c := func(counts, depths map[string]int) TestIDCounts { return TestIDCounts{Counts: counts, Depths: depths} }
	for _, tc := range []struct {
		name          string
		before, after TestIDCounts
		want          string
	}{
		{"nothing changed", c(map[string]int{"row": 2}, nil), c(map[string]int{"row": 2}, nil), ""},
		{"a list over a toast", c(map[string]int{"row": 2}, map[string]int{"row": 5}), c(map[string]int{"row": 3, "toast": 1}, map[string]int{"row": 5, "toast": 2}), "row"},
		{"the row over its cells", c(map[string]int{"row": 2, "cell": 6}, map[string]int{"row": 5, "cell": 6}), c(map[string]int{"row": 3, "cell": 9}, map[string]int{"row": 5, "cell": 6}), "row"},
		{"the longer list at one depth", c(map[string]int{"a": 2, "b": 5}, map[string]int{"a": 4, "b": 4}), c(map[string]int{"a": 3, "b": 6}, map[string]int{"a": 4, "b": 4}), "b"},
		{"a list that emptied", c(map[string]int{"row": 3}, map[string]int{"row": 5}), c(map[string]int{}, nil), "row"},
		{"ties by name", c(map[string]int{"b": 2, "a": 2}, nil), c(map[string]int{"b": 3, "a": 3}, nil), "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ChangedList(tc.before, tc.after)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("ChangedList = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}
