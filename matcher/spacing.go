package matcher

// spacing notices a double-spaced input: a paste with a blank line after
// every line, where a blank line says nothing about where an exception's
// message or a record ends. It keeps the blankness of the last few
// consecutive lines the engine looked at: the lines of an open event.
type spacing struct {
	hist uint8 // 1 for a blank line, the latest line in the lowest bit
	n    int   // consecutive lines in hist
	last int64 // the latest line's number
}

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
