package matcher

import (
	"bytes"
	"encoding/binary"

	"github.com/coregx/ahocorasick"
)

// windowIndexMin is the number of a user's windows from which they are
// looked for in a window index rather than in the automaton: below it,
// the automaton takes them in a few milliseconds.
const windowIndexMin = 2048

// windowIndex finds needles of genNeedle bytes in a text: a user's pack of
// thousands of records, each proposed on one window of its literal. It is
// built in a few milliseconds per ten thousand windows, where the
// automaton's states would take a second and tens of megabytes, and it
// looks at each position of a text with a load, a multiply and a bit test:
// a filter of the windows' first eight bytes, the windows themselves in a
// hash table behind it.
type windowIndex struct {
	filter []uint64 // 1<<filterBits bits, by filterHash
	slots  []int32  // needle id + 1 by windowHash, open addressing; 0: empty
	mask   uint64   // len(slots) - 1
	needle [][]byte // the needles by id (the matcher's)
}

const filterBits = 21

// newWindowIndex indexes needles[from:], each genNeedle bytes; nil when
// there are none.
func newWindowIndex(needles [][]byte, from int) *windowIndex {
	n := len(needles) - from
	if n <= 0 {
		return nil
	}
	size := 1
	for size < 2*n {
		size <<= 1
	}
	w := &windowIndex{filter: make([]uint64, 1<<filterBits/64), slots: make([]int32, size), mask: uint64(size - 1), needle: needles}
	for id := from; id < len(needles); id++ {
		b := needles[id]
		f := filterHash(b)
		w.filter[f>>6] |= 1 << (f & 63)
		s := windowHash(string(b)) & w.mask
		for w.slots[s] != 0 {
			s = (s + 1) & w.mask
		}
		w.slots[s] = int32(id + 1)
	}
	return w
}

// filterHash is the filter's bit for a window, by its first eight bytes.
func filterHash(b []byte) uint64 {
	return binary.LittleEndian.Uint64(b) * 0x9e3779b97f4a7c15 >> (64 - filterBits)
}

// find appends to dst the needles found in text, in the order of their
// end, as the automaton reports them.
func (w *windowIndex) find(text []byte, dst []ahocorasick.Match) []ahocorasick.Match {
	for i := 0; i+genNeedle <= len(text); i++ {
		f := filterHash(text[i:])
		if w.filter[f>>6]&(1<<(f&63)) == 0 {
			continue
		}
		win := text[i : i+genNeedle]
		for s := windowHash(string(win)) & w.mask; w.slots[s] != 0; s = (s + 1) & w.mask {
			if id := int(w.slots[s] - 1); bytes.Equal(w.needle[id], win) {
				dst = append(dst, ahocorasick.Match{PatternID: id, Start: i, End: i + genNeedle})
				break
			}
		}
	}
	return dst
}

// find returns the needles found in text, the automaton's and the window
// index's, in the order of their end.
func (m *Matcher) find(text []byte) []ahocorasick.Match {
	hits := m.ac.FindAllOverlapping(text)
	if m.windows == nil {
		return hits
	}
	more := m.windows.find(text, nil)
	if len(more) == 0 {
		return hits
	}
	if len(hits) == 0 {
		return more
	}
	out := make([]ahocorasick.Match, 0, len(hits)+len(more))
	i, j := 0, 0
	for i < len(hits) && j < len(more) {
		if hits[i].End <= more[j].End {
			out = append(out, hits[i])
			i++
		} else {
			out = append(out, more[j])
			j++
		}
	}
	out = append(out, hits[i:]...)
	return append(out, more[j:]...)
}
