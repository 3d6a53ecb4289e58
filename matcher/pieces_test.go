package matcher

import (
	"bytes"
	"slices"
	"testing"
)

// Regression: a block is searched a piece at a time (searchPiece); what
// the automaton proposes for it is what it proposes for each of its lines
// searched alone, whatever piece a line falls in, and a needle that
// starts or ends with the newline between two pieces ("\nE0",
// "Error:\n") is found.
func TestCandidatesOfPiecesAreThoseOfLines(t *testing.T) {
	m := builtinMatcher(t)
	block := fixtureLogs(t)
	// Lines that hold needles with a newline at every offset around the
	// pieces' ends.
	for pad := range 40 {
		block = append(block, bytes.Repeat([]byte("x"), searchPiece-40+pad)...)
		block = append(block, " Error:\nE0423 16:34:48.911491 217200 client.cpp:347] Transfer failed\nValueError:\nException:\n"...)
	}
	type prop struct {
		start int
		owner int32
	}
	set := func(cands []candidate) []prop {
		var out []prop
		for _, c := range cands {
			out = append(out, prop{c.start, c.owner})
		}
		slices.SortFunc(out, func(a, b prop) int {
			if a.start != b.start {
				return a.start - b.start
			}
			return int(a.owner - b.owner)
		})
		return slices.Compact(out)
	}
	got, _ := m.candidates(block, nil, nil)
	var want []candidate
	for off := 0; off < len(block); {
		end := off + lineLen(block[off:]) + 1
		line := block[off:end]
		// Alone, and after the newline that ends the line before it.
		c, _ := m.candidates(line, nil, nil)
		for _, x := range c {
			want = append(want, candidate{off + x.start, x.owner})
		}
		c, _ = m.candidates(append([]byte{'\n'}, line...), nil, nil)
		for _, x := range c {
			want = append(want, candidate{off + x.start - 1, x.owner})
		}
		off = end
	}
	g, w := set(got), set(want)
	if len(block) < 4*searchPiece {
		t.Fatalf("the block is %d bytes, want several pieces", len(block))
	}
	for _, p := range w {
		if _, found := slices.BinarySearchFunc(g, p, func(a, b prop) int {
			if a.start != b.start {
				return a.start - b.start
			}
			return int(a.owner - b.owner)
		}); !found {
			line := block[p.start : p.start+lineLen(block[p.start:])]
			t.Errorf("the block's search misses owner %d on the line at %d, which ends %q", p.owner, p.start, line[max(0, len(line)-60):])
		}
	}
}
