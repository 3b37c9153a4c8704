package cli

import (
	"fmt"
	"io"
)

// unifiedDiff writes a unified diff of two texts (git apply and patch read
// it) with 3 lines of context. Both must be small enough for an LCS table
// (specs are); a larger pair gets one line saying so.
func unifiedDiff(w io.Writer, oldName, newName, a, b string) {
	fmt.Fprintf(w, "--- %s\n+++ %s\n", oldName, newName)
	unifiedHunks(w, a, b)
}

// unifiedHunks prints the hunks (3 lines of context) that turn a into b.
func unifiedHunks(w io.Writer, a, b string) {
	al, bl := splitLines(a), splitLines(b)
	if len(al)*len(bl) > 4_000_000 {
		fmt.Fprintf(w, "@@ %d lines -> %d lines (too large to diff) @@\n", len(al), len(bl))
		return
	}
	lcs := make([][]int, len(al)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(bl)+1)
	}
	for i := len(al) - 1; i >= 0; i-- {
		for j := len(bl) - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind   byte
		line   string
		ai, bi int // 0-based positions in a and b before the op
	}
	var ops []op
	i, j := 0, 0
	for i < len(al) || j < len(bl) {
		switch {
		case i < len(al) && j < len(bl) && al[i] == bl[j]:
			ops = append(ops, op{' ', al[i], i, j})
			i++
			j++
		case i < len(al) && (j == len(bl) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', al[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', bl[j], i, j})
			j++
		}
	}
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: from ctx lines before this change to ctx lines after the
		// last change closer than 2*ctx lines to the one before.
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		na, nb := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		sa, sb := ops[start].ai+1, ops[start].bi+1
		if na == 0 {
			sa--
		}
		if nb == 0 {
			sb--
		}
		fmt.Fprintf(w, "@@ -%d,%d +%d,%d @@\n", sa, na, sb, nb)
		for _, o := range ops[start:end] {
			fmt.Fprintf(w, "%c%s\n", o.kind, o.line)
		}
		k = end
	}
}
