package launch

import (
	"strings"

	"github.com/tailfix/tailfix/internal/editdist"
	"github.com/tailfix/tailfix/patterns"
)

// otherEngines maps flags of other serving engines to sglang's.
var otherEngines = map[string]string{
	"--max-model-len":          "--context-length",
	"--gpu-memory-utilization": "--mem-fraction-static",
	"--max-num-seqs":           "--max-running-requests",
}

// normalize lowercases a flag and writes underscores as dashes, with the
// two leading dashes argparse wants.
func normalize(name string) string {
	n := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	if strings.HasPrefix(n, "-") && !strings.HasPrefix(n, "--") {
		n = "-" + n
	}
	return n
}

// maxDistance is how many edits a misspelling of s may be away from the
// word it means.
func maxDistance(s string) int {
	switch n := len(strings.TrimLeft(s, "-")); {
	case n <= 4:
		return 1
	case n <= 12:
		return 2
	}
	return 3
}

// suggest returns the flag an unknown one most likely means, or nil:
// the same name with dashes for underscores, a flag of another engine, or
// the nearest name within a few edits.
func (c *Command) suggest(name string) *patterns.Flag {
	n := normalize(name)
	if fl, cands := c.lookup(n); fl != nil && len(cands) == 0 {
		return fl
	}
	if to, ok := otherEngines[n]; ok {
		if fl := c.table.Lookup(to); fl != nil {
			return fl
		}
	}
	var all []string
	for _, fl := range c.table.Flags {
		if !fl.Deprecated {
			all = append(all, fl.Names...)
		}
	}
	if best := closest(n, all, maxDistance(n)); best != "" {
		return c.table.Lookup(best)
	}
	return nil
}

// closest returns the candidate nearest to s, if it is at most max edits
// away; the first one wins a tie.
func closest(s string, candidates []string, max int) string {
	best, bestD := "", max+1
	for _, cand := range candidates {
		if abs(len(cand)-len(s)) >= bestD {
			continue
		}
		if d := distance(s, cand, bestD); d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of neighbours
// each count one. It stops early, returning limit, once the distance
// cannot be below limit.
func distance(a, b string, limit int) int {
	return editdist.Distance([]byte(a), []byte(b), true, limit)
}
