package matcher

import "bytes"

// framer cuts a byte stream into whole lines, the same way for every
// reader of the engine: Engine.Write, Live and Scan. Bytes after the last
// newline are carried until the rest of their line comes. A line longer
// than MaxLine is cut: its first MaxLine bytes become a line of their own
// and the rest of it, up to its newline, is dropped. Every line handed on
// ends in '\n'; End adds one to a last line that lacks it.
type framer struct {
	carry    []byte
	spare    []byte // the buffer of the last head, reused for the next carry
	skipping bool   // dropping the rest of an overlong line
}

// frame takes the next bytes of the stream and hands on the whole lines
// they complete, in order: first the carried line they end (head), then
// the whole lines of p itself (body, a sub-slice of p), then the start of
// an overlong last line cut to MaxLine (tail). Any may be empty. The slices
// are valid until the next call.
func (f *framer) frame(p []byte) (head, body, tail []byte) {
	if f.skipping {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return nil, nil, nil
		}
		p, f.skipping = p[i+1:], false
	}
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		return f.keep(p), nil, nil
	}
	if len(f.carry) > 0 {
		j := bytes.IndexByte(p, '\n')
		head = append(f.carry, p[:j+1]...)
		if len(head) > MaxLine+1 {
			head = append(head[:MaxLine], '\n')
		}
		// The next carry must not overwrite the head handed on.
		f.carry, f.spare = f.spare, head
		p = p[j+1:]
		i -= j + 1
	}
	f.carry = f.carry[:0]
	return head, p[:i+1], f.keep(p[i+1:])
}

// keep carries the bytes of a partial line. When the carried line grows
// past MaxLine its start is returned as a line of its own and the rest of
// the line is skipped.
func (f *framer) keep(p []byte) []byte {
	if len(f.carry)+len(p) <= MaxLine {
		f.carry = append(f.carry, p...)
		return nil
	}
	f.carry = append(f.carry, p[:MaxLine-len(f.carry)]...)
	cut := append(f.carry, '\n')
	f.carry, f.skipping = f.carry[:0], true
	return cut
}

// cut splits a block that was read into whole lines and a partial last
// line, in place, for a reader that fills its own buffers: whole is the
// block up to its last newline, rest the bytes after it. A block with no
// newline that is longer than MaxLine holds the start of an overlong line:
// it is cut to MaxLine bytes and a newline, rest is empty, and the rest of
// that line is skipped by the next call to drop.
func (f *framer) cut(block []byte) (whole, rest []byte) {
	if i := bytes.LastIndexByte(block, '\n'); i >= 0 {
		return block[:i+1], block[i+1:]
	}
	if len(block) <= MaxLine {
		return nil, block
	}
	f.skipping = true
	return append(block[:MaxLine], '\n'), nil
}

// drop removes from p, in place, the rest of an overlong line that is
// being skipped, and returns what is left.
func (f *framer) drop(p []byte) []byte {
	if !f.skipping {
		return p
	}
	i := bytes.IndexByte(p, '\n')
	if i < 0 {
		return p[:0]
	}
	f.skipping = false
	return p[:copy(p, p[i+1:])]
}

// end returns the carried partial line with a newline, or nil, and forgets
// it: the bytes that come next start a new line.
func (f *framer) end() []byte {
	f.skipping = false
	if len(f.carry) == 0 {
		return nil
	}
	line := append(f.carry, '\n')
	f.carry = f.carry[:0]
	return line
}
