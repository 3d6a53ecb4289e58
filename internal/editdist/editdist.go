// Package editdist measures how far apart two sequences are: characters
// of a misspelt flag, words of a misremembered record id.
package editdist

// Distance is the edit distance between a and b: inserting, deleting or
// replacing an element counts one, and with transpose so does swapping two
// neighbours (the optimal string alignment distance). It stops early,
// returning limit, once a whole row of the table is at or above limit.
func Distance[T comparable](a, b []T, transpose bool, limit int) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if transpose && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin >= limit {
			return limit
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
