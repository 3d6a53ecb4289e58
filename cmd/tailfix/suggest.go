package main

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/tailfix/tailfix/internal/editdist"
)

// idLike matches what can only be meant as a record id: one word of the
// characters ids are made of, with a slash or a dash in it
// (sglang/port-in-use, port-in-use), unlike a log line or an exception's
// name.
var idLike = regexp.MustCompile(`^[A-Za-z0-9._]+([/-][A-Za-z0-9._]+)+$`)

// maxSuggestions is how many ids a did-you-mean names at most.
const maxSuggestions = 3

// suggestCutoff is the largest distance (0: the same, 1: nothing alike) at
// which an id is still offered.
const suggestCutoff = 0.4

// similarIDs returns the ids nearest to id, nearest first, at most
// maxSuggestions of them and none further than suggestCutoff. Two ids are
// compared whole, so that a typo anywhere is found, and by their last path
// segment, so that the right words under another family are found too
// (sglang/port-in-use: net/address-in-use); the nearer of the two counts,
// and the whole one breaks a tie (torhc/cuda-oom: torch/cuda-oom before
// llamacpp/cuda-oom).
func similarIDs(ids []string, id string) []string {
	type near struct {
		id           string
		d, wholeDist float64
	}
	var found []near
	q := newIDWords(id)
	for _, cand := range ids {
		c := newIDWords(cand)
		whole := q.whole.distance(c.whole)
		if d := min(whole, q.last.distance(c.last)); d <= suggestCutoff {
			found = append(found, near{cand, d, whole})
		}
	}
	slices.SortFunc(found, func(a, b near) int {
		return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.wholeDist, b.wholeDist), strings.Compare(a.id, b.id))
	})
	var out []string
	for _, n := range found[:min(len(found), maxSuggestions)] {
		out = append(out, n.id)
	}
	return out
}

// idWords is an id, or its last segment, as characters and as words.
type idWords struct {
	s     string
	words []string
}

// idPair is an id whole and its last path segment.
type idPair struct{ whole, last idWords }

func newIDWords(id string) idPair {
	last := id[strings.LastIndexByte(id, '/')+1:]
	return idPair{whole: splitID(id), last: splitID(last)}
}

func splitID(s string) idWords {
	return idWords{s: s, words: strings.FieldsFunc(s, func(r rune) bool {
		return r == '/' || r == '-' || r == '_' || r == '.'
	})}
}

// distance is how far apart a and b are, from 0 (the same) to 1: the mean
// of their Levenshtein distance in characters and in words, each as a
// share of the longer. Words keep port-in-use nearer to address-in-use
// than to port-wait-timeout, which shares more letters.
func (a idWords) distance(b idWords) float64 {
	// Lengths alone bound both distances from below: skip what cannot be
	// near.
	charLow := ratio(abs(len(a.s)-len(b.s)), max(len(a.s), len(b.s)))
	wordLow := ratio(abs(len(a.words)-len(b.words)), max(len(a.words), len(b.words)))
	if (charLow+wordLow)/2 > suggestCutoff {
		return 1
	}
	words := ratio(editdist.Distance(a.words, b.words, false, math.MaxInt), max(len(a.words), len(b.words)))
	if (charLow+words)/2 > suggestCutoff {
		return 1
	}
	chars := ratio(editdist.Distance([]rune(a.s), []rune(b.s), false, math.MaxInt), max(len(a.s), len(b.s)))
	return (chars + words) / 2
}

func ratio(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
