package matcher

import "bytes"

// spacing notices a double-spaced input: a paste with a blank line after
// every line, where a blank line says nothing about where an exception's
// message or a record ends. It keeps the blankness of the last few
// consecutive lines the engine looked at: the lines of an open event.
type spacing struct {
	// whole is set for an input that is double-spaced from its start
	// (doubleSpaced): every blank line of it is spacing.
	whole bool
	hist  uint8 // 1 for a blank line, the latest line in the lowest bit
	n     int   // consecutive lines in hist
	last  int64 // the latest line's number
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
	return blank && s.whole || s.n >= 4 && s.hist&0xF == 0b0101
}

// doubleSpaced reports whether the start of an input is a double-spaced
// paste: a blank line after every line of text, no two lines of text next
// to each other, over at least minSpacedLines lines of text (a paste's own
// blank lines come out as three).
func doubleSpaced(head []byte) bool {
	const minSpacedLines, maxLines = 4, 400
	text, prevText := 0, false
	for n := 0; len(head) > 0 && n < maxLines; n++ {
		line, rest, found := bytes.Cut(head, []byte("\n"))
		if !found && n > 0 {
			break // a line cut by the end of the sniffed head
		}
		head = rest
		blank := isBlank(line)
		if !blank {
			if prevText {
				return false
			}
			text++
		}
		prevText = !blank
	}
	return text >= minSpacedLines
}

// skipped notes the last lines of a stretch the engine did not look at
// (whole lines, each ending in '\n', the last of them numbered last), so
// that a double-spaced paste is known as such at the first line of an
// event that opens after them.
func (s *spacing) skipped(b []byte, last int64) {
	var tail [4]bool // blankness of the last lines, the latest first
	k := 0
	for end := len(b) - 1; end >= 0 && k < len(tail); k++ {
		start := bytes.LastIndexByte(b[:end], '\n') + 1
		tail[k] = isBlank(b[start:end])
		end = start - 1
	}
	s.hist, s.n, s.last = 0, 0, last-int64(k)
	for i := k - 1; i >= 0; i-- {
		s.push(s.last+1, tail[i])
	}
}
