package matcher

import (
	"bytes"
	"hash/maphash"
	"slices"

	"github.com/coregx/ahocorasick"
)

// A healthy server's log is mostly a few kinds of line written over and
// over ("Decode batch. #running-req: 12, #token: 3456, …", the access log's
// "POST /generate HTTP/1.1" 200 OK"), which differ only in their numbers,
// and which the automaton searches byte by byte to find nothing. A
// quietShapes remembers what it found in the lines of each shape, a
// line's shape being the line with its digits masked (by a byte no needle
// holds), and a later line of a shape known to hold no needle is not
// searched. That is exact, not a guess:
//   - what the automaton finds in a line depends on the line and the
//     newlines around it only, since no needle has a newline but at its
//     start or end (a matcher with one remembers nothing: noQuiet);
//   - two lines of one shape differ only where each has a digit or the
//     mask, so a needle with neither in it is in both or in neither;
//   - a needle with a digit can be in a line only where the needle,
//     masked, is in the line's shape: the shape's regions, the same for
//     all its lines (found by quietGuard). Lines of a shape with regions
//     are told apart by their bytes there (the access log's `HTTP/1.1" 2`
//     from `HTTP/1.1" 5`, which a needle for server errors holds), and
//     each such variant is remembered as a shape is.
//
// When few lines are of a shape known to be quiet (a log of distinct
// messages, a request id in every line), masking them costs more than it
// saves, and the memo rests for a while.

// quietShapes is one searcher's memo; it is not safe for concurrent use.
type quietShapes struct {
	shapes map[string]*shapeQuiet
	// seen holds the hashes of shapes seen once, a slot each: a shape is
	// learnt when it comes again, so that the lines of a traceback, each
	// of its own shape, cost no more than a look-up.
	seen []uint64 // made when first needed: a followed file that says nothing costs nothing
	mask []byte
	key  []byte
	// Of the lines looked up since the last tally, how many the memo
	// knew to be quiet; rest counts down lines not looked up after a
	// poor tally.
	looked, quiet, rest int
}

// shapeQuiet is what a memo knows of the lines of one shape.
type shapeQuiet struct {
	// regions are where a needle with a digit may be in the line and the
	// newlines around it.
	regions [][2]int32
	// variants says whether the lines of the shape hold a needle, by
	// their bytes in the regions ("" when it has none).
	variants map[string]bool
}

const (
	// maxQuietShapes bounds a memo, and maxQuietVariants a shape's
	// variants (a few hundred KiB in all); a full one learns no more.
	maxQuietShapes   = 1024
	maxQuietVariants = 64
	// quietSeen is how many shapes seen once a memo holds.
	quietSeen = 1 << 12
	// maxQuietLine is the longest line a memo masks.
	maxQuietLine = 1024
	// quietTally is how many lines are looked up between tallies, and
	// quietRest how many are not looked up after a tally with fewer
	// than one in minQuietShare quiet.
	quietTally    = 4096
	quietRest     = 1 << 16
	minQuietShare = 2
)

// masked is text with each digit as the mask byte (see quietMask), in
// q's scratch.
func (q *quietShapes) masked(m *Matcher, text []byte) []byte {
	q.mask = slices.Grow(q.mask[:0], len(text))[:len(text)]
	// A table rather than a test: no branch to mispredict on the digits.
	tr := &m.quietMask
	for i, c := range text {
		q.mask[i] = tr[c]
	}
	return q.mask
}

// skips reports whether the line of block that starts at pos (after a
// newline) and ends at end (its newline) holds no needle, as the memo
// knows or has just found out: the line is then not to be searched again.
// A shape seen for the second time is learnt.
func (q *quietShapes) skips(m *Matcher, block []byte, pos, end int) bool {
	if q.rest > 0 {
		q.rest--
		return false
	}
	if end-pos > maxQuietLine {
		return false
	}
	if q.looked == quietTally {
		if q.quiet*minQuietShare < q.looked {
			q.rest = quietRest
		}
		q.looked, q.quiet = 0, 0
	}
	q.looked++
	// The line with the newlines around it, which needles may start or
	// end with.
	text := block[pos-1 : end+1]
	around := q.masked(m, text)
	s := q.shapes[string(around)]
	if s == nil {
		if len(q.shapes) >= maxQuietShapes {
			return false
		}
		if q.seen == nil {
			q.seen = make([]uint64, quietSeen)
		}
		h := maphash.Bytes(quietSeed, around)
		if slot := &q.seen[h%quietSeen]; *slot != h {
			*slot = h
			return false
		}
		s = &shapeQuiet{regions: m.quietGuard.regions(around), variants: map[string]bool{}}
		if q.shapes == nil {
			q.shapes = map[string]*shapeQuiet{}
		}
		q.shapes[string(around)] = s
	}
	v := q.variant(s, text)
	if found, ok := s.variants[string(v)]; ok {
		return q.tell(!found)
	}
	if len(s.variants) >= maxQuietVariants {
		return false
	}
	found := len(m.find(text)) > 0
	s.variants[string(v)] = found
	return !found // searched just now: no saving to count
}

// quietSeed hashes shapes.
var quietSeed = maphash.MakeSeed()

// tell counts a line the memo knew to be quiet.
func (q *quietShapes) tell(quiet bool) bool {
	if quiet {
		q.quiet++
	}
	return quiet
}

// variant is the bytes of text in the shape's regions, in q's scratch:
// none for a shape without regions.
func (q *quietShapes) variant(s *shapeQuiet, text []byte) []byte {
	q.key = q.key[:0]
	for _, r := range s.regions {
		q.key = append(q.key, text[r[0]:r[1]]...)
	}
	return q.key
}

// quietGuard finds the needles with a digit, themselves masked, in a
// masked line and the newlines around it.
type quietGuard struct {
	ac *ahocorasick.Automaton
}

// regions returns where the needles with a digit, masked, are in a masked
// text.
func (g quietGuard) regions(masked []byte) [][2]int32 {
	if g.ac == nil {
		return nil
	}
	var out [][2]int32
	for _, h := range g.ac.FindAllOverlapping(masked) {
		out = append(out, [2]int32{int32(h.Start), int32(h.End)})
	}
	return out
}

// quietSetup works out whether the matcher may remember quiet shapes, the
// byte that masks their digits, and the guard that finds their regions
// (see quietShapes).
func (m *Matcher) quietSetup() error {
	var in [256]bool
	for _, n := range m.needles {
		if i := bytes.IndexByte(n, '\n'); i > 0 && i < len(n)-1 {
			m.noQuiet = true // a needle may span two lines
			return nil
		}
		for _, c := range n {
			in[c] = true
		}
	}
	m.noQuiet = true
	for c := 1; c < len(in); c++ {
		if !in[c] && c != '\n' && c-'0' >= 10 {
			for b := range m.quietMask {
				m.quietMask[b] = byte(b)
			}
			for d := '0'; d <= '9'; d++ {
				m.quietMask[d] = byte(c)
			}
			m.noQuiet = false
			break
		}
	}
	var q quietShapes
	var masked [][]byte
	for _, n := range m.needles {
		if bytes.ContainsFunc(n, func(r rune) bool { return r >= '0' && r <= '9' }) {
			masked = append(masked, bytes.Clone(q.masked(m, n)))
		}
	}
	if m.noQuiet || len(masked) == 0 {
		return nil
	}
	ac, err := ahocorasick.NewBuilder().AddPatterns(masked).Build()
	m.quietGuard = quietGuard{ac}
	return err
}
