package lab

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// suggest returns `; did you mean "x"?` for the closest of names within
// edit distance 2, or "".
func suggest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(strings.ToLower(s), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// Suggest is suggest for callers outside the package (the CLI's flag
// names): `; did you mean "x"?` or "".
func Suggest(s string, names []string) string {
	sorted := slices.Clone(names)
	sort.Strings(sorted)
	return suggest(s, sorted)
}

// editDistance is the optimal string alignment distance between a and
// b: the Levenshtein distance with a swap of two neighbouring characters
// counted as one edit ("kyes" is one edit from "keys").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
