package matcher

import "bytes"

// spacing notices a double-spaced input: a paste with a blank line after
// every line, where a blank line says nothing about where an exception's
// message or a record ends. It keeps the blankness of the last few
// consecutive lines; lines the engine skipped are read back from the block
// when it looks again, a few lines at most.
type spacing struct {
	hist uint8 // 1 for a blank line, the latest line in the lowest bit
	n    int   // consecutive lines in hist
	last int64 // the latest line's number
}

// spacedLookback is how many lines before a line spacing reads back.
const spacedLookback = 3

// push notes a line and reports whether it is a blank line of a
// double-spaced stretch: the three lines before it were text, blank, text.
func (s *spacing) push(line int64, blank bool) bool {
	if line != s.last+1 {
		s.hist, s.n = 0, 0
	}
	s.hist <<= 1
	if blank {
		s.hist |= 1
	}
	s.n = min(s.n+1, 8)
	s.last = line
	return s.n >= 4 && s.hist&0xF == 0b0101
}

// seed reads back up to spacedLookback lines before line from before,
// which ends with the newline of line-1 and starts at the start of a line,
// and goes on from the history when it reaches back to it.
func (s *spacing) seed(before []byte, line int64) {
	var blank [spacedLookback]bool
	k, end := 0, len(before) // before[:end] ends with a line's newline
	for k < spacedLookback && end > 0 {
		from := max(0, end-1-512)
		start := bytes.LastIndexByte(before[from:end-1], '\n') + 1 + from
		if start == from && from > 0 {
			break // a long line: look no further
		}
		blank[k] = isBlank(before[start : end-1])
		k++
		end = start
	}
	if s.last != line-int64(k)-1 {
		s.hist, s.n = 0, 0
	}
	for i := k - 1; i >= 0; i-- {
		s.hist <<= 1
		if blank[i] {
			s.hist |= 1
		}
	}
	s.n = min(s.n+k, 8)
	s.last = line - 1
}
