package matcher

import "bytes"

// Normalize appends to dst the matching view of one raw line (without its
// newline) and returns the extended buffer. The view drops ANSI escape
// sequences (the colours of one spelt out in text too: rsyslog's "#033[0m"),
// a trailing CR, and everything up to the last CR that has text
// after it: a progress bar redrawn with CR shows only its final state, as in
// a terminal. A prefix that a collector put before the bar's first state
// ("0: ", "host python[7]: ") stays before its last one. Typographic
// quotes read as ASCII ones, and a line set in bold as its text. Invalid UTF-8 and
// NUL bytes pass through unchanged.
//
// Normalize does not allocate when dst has room for the line.
func Normalize(dst, raw []byte) []byte {
	raw = bytes.TrimSuffix(raw, []byte{'\r'})
	if j := bytes.IndexByte(raw, '\r'); j >= 0 {
		i := bytes.LastIndexByte(raw, '\r')
		first, last := raw[:j], raw[i+1:]
		raw = last
		if p := redrawPrefix(first, last); p > 0 {
			dst = normalizeEsc(dst, first[:p])
		}
	}
	start := len(dst)
	dst = normalizeEsc(dst, raw)
	dst = foldQuotes(dst, start)
	return unbold(dst, start)
}

// unbold takes off the Markdown emphasis around the whole of dst[start:]
// (`**TypeError: boom**`, a line a paste set in bold), in place.
func unbold(dst []byte, start int) []byte {
	line := dst[start:]
	n := len(line)
	if n < 5 || line[0] != '*' || line[1] != '*' || line[n-1] != '*' || line[n-2] != '*' || line[2] == ' ' || line[2] == '*' ||
		bytes.Contains(line[2:n-2], []byte("**")) {
		return dst
	}
	copy(line, line[2:n-2])
	return dst[:start+n-4]
}

// foldQuotes turns the typographic quotes in dst[start:] (‘ ’ “ ”) into
// ASCII ones, in place: a log pasted through an editor or a chat that
// "smartens" quotes (ImportError: cannot import name ‘x’ from ‘y’) reads
// as the program printed it.
func foldQuotes(dst []byte, start int) []byte {
	i := bytes.IndexByte(dst[start:], 0xe2)
	if i < 0 {
		return dst
	}
	w := start + i
	for r := w; r < len(dst); {
		if c := dst[r]; c == 0xe2 && r+2 < len(dst) && dst[r+1] == 0x80 && quoteTail(dst[r+2]) {
			q := byte('\'')
			if dst[r+2] >= 0x9c {
				q = '"'
			}
			dst[w], w, r = q, w+1, r+3
			continue
		}
		dst[w], w, r = dst[r], w+1, r+1
	}
	return dst[:w]
}

// redrawPrefix returns the length of the collector's prefix ("0: ",
// "host python[7]: ") that only a progress bar's first state carries, in
// the text before a line's first CR: all of it when it ends in a space and
// states no progress (the bar started right after the CR), or what comes
// before the start of the bar's last state. It returns 0 when there is
// none.
func redrawPrefix(first, last []byte) int {
	const probe = 8 // enough of a bar's description to find it again
	switch {
	case len(first) == 0 || len(last) == 0:
		return 0
	case first[len(first)-1] == ' ' && len(bytes.TrimSpace(first)) > 0 && bytes.IndexByte(first, '%') < 0:
		return len(first)
	case len(last) < 3:
		return 0
	}
	return max(bytes.Index(first, last[:min(probe, len(last))]), 0)
}

// normalizeEsc appends raw to dst without its ANSI escape sequences,
// whether the escape character is there itself or spelt out in text, as a
// logger or a tool that escapes control characters writes it: rsyslog's
// "#033[1;36m", `cat -v`'s "^[[0m", a string's "\x1b[31m", "\033[0m" or
// "\u001b[0m".
func normalizeEsc(dst, raw []byte) []byte {
	text := textEscapeIndex(raw) >= 0
	if !text && bytes.IndexByte(raw, 0x1b) < 0 {
		return append(dst, raw...)
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		if c == 0x1b {
			i = skipEscape(raw, i)
			continue
		}
		if text {
			if n := textEscape(raw[i:]); n > 0 {
				i += n
				continue
			}
		}
		dst = append(dst, c)
		i++
	}
	return dst
}

// textEscapes spell out the escape character before a CSI's "[".
var textEscapes = [...]string{"#033[", "^[[", `\x1b[`, `\033[`, `\u001b[`, `\x1B[`, `\u001B[`}

// textEscapeIndex returns where the first escape spelt out in text starts
// in b, or -1. It looks only before the "[" that ends each spelling.
func textEscapeIndex(b []byte) int {
	for off := 0; off < len(b); {
		i := bytes.IndexByte(b[off:], '[')
		if i < 0 {
			return -1
		}
		p := off + i
		if p > 0 {
			switch b[p-1] {
			case '3', '[', 'b', 'B': // the last byte of every spelling before its "["
				for _, e := range textEscapes {
					if n := len(e) - 1; p >= n && string(b[p-n:p+1]) == e {
						return p - n
					}
				}
			}
		}
		off = p + 1
	}
	return -1
}

// textEscape returns the length of a colour or erase sequence spelt out in
// text at the start of b ("#033[1;36m", "^[[0m", "\x1b[K"), or 0. Only
// those, whose parameters are digits and semicolons, are taken: the words
// of a message never look like them.
func textEscape(b []byte) int {
	for _, e := range textEscapes {
		if !bytes.HasPrefix(b, []byte(e)) {
			continue
		}
		for i := len(e); i < len(b); i++ {
			switch c := b[i]; {
			case c >= '0' && c <= '9' || c == ';':
				continue
			case c == 'm' || c == 'K':
				return i + 1
			}
			return 0
		}
		return 0
	}
	return 0
}

// skipEscape returns the index just past the escape sequence at raw[i].
func skipEscape(raw []byte, i int) int {
	i++ // ESC
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '[': // CSI: parameters and intermediates, then a final byte 0x40–0x7E.
		for i++; i < len(raw); i++ {
			if raw[i] >= 0x40 && raw[i] <= 0x7e {
				return i + 1
			}
		}
		return i
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: end at BEL or ESC \.
		for i++; i < len(raw); i++ {
			if raw[i] == 0x07 {
				return i + 1
			}
			if raw[i] == 0x1b && i+1 < len(raw) && raw[i+1] == '\\' {
				return i + 2
			}
		}
		return i
	default: // Two-byte sequence such as ESC ( B or ESC =.
		if raw[i] >= 0x20 && raw[i] <= 0x2f && i+1 < len(raw) {
			return i + 2
		}
		return i + 1
	}
}

// Header is sglang's "[time PREFIX] " line header, split off a normalized line.
type Header struct {
	// Time is "YYYY-MM-DD HH:MM:SS", with ".mmm" when the server logs
	// milliseconds. Empty when the line has no header.
	Time []byte
	// Ranks holds the rank tokens ("TP3", "DP1 TP1 EP1") as printed. Empty
	// for the main process and for lines without a header.
	Ranks []byte
}

// rankNames are the rank prefixes sglang's scheduler processes print.
var rankNames = [...]string{"ATTN_CP", "MOE_DP", "DP", "PP", "TP", "EP"}

// SplitHeader splits sglang's header off a normalized line. It accepts
// "[YYYY-MM-DD HH:MM:SS(.mmm)( TOKEN)*] " with rank tokens in any order,
// the older "[HH:MM:SS( TOKEN)*] ", and the diffusion server's
// "[MM-DD HH:MM:SS] "; a line without such a header is returned whole with
// an empty Header.
func SplitHeader(line []byte) (Header, []byte) {
	stamp := len("[2006-01-02 15:04:05")
	const (
		monthDay = len("[01-02 15:04:05")
		clock    = len("[15:04:05")
	)
	switch {
	case len(line) > stamp && line[0] == '[' && isStamp(line[1:stamp]):
	case len(line) > monthDay && line[0] == '[' && isMonthDay(line[1:monthDay]):
		stamp = monthDay
	case len(line) > clock && line[0] == '[' && isClock(line[1:clock]):
		// The releases of 2024 printed the time of day alone:
		// "[17:39:28 TP0] ".
		stamp = clock
	default:
		return splitRanksOnly(line)
	}
	end := bytes.IndexByte(line[stamp:], ']')
	if end < 0 {
		return Header{}, line
	}
	end += stamp
	t := line[1:stamp]
	rest := line[stamp:end]
	if len(rest) >= 4 && rest[0] == '.' && isDigits(rest[1:4]) {
		t = line[1 : stamp+4]
		rest = rest[4:]
	}
	if !validRanks(rest) {
		return Header{}, line
	}
	msg := line[end+1:]
	if len(msg) > 0 && msg[0] == ' ' {
		msg = msg[1:]
	}
	return Header{Time: t, Ranks: bytes.TrimPrefix(rest, []byte{' '})}, msg
}

// splitRanksOnly splits a header that has ranks but no time, "[TP0] msg",
// as some log shippers and copied excerpts leave it.
func splitRanksOnly(line []byte) (Header, []byte) {
	if len(line) < len("[TP0] ") || line[0] != '[' {
		return Header{}, line
	}
	end := bytes.IndexByte(line, ']')
	if end < 0 || end > 64 || end+1 >= len(line) || line[end+1] != ' ' {
		return Header{}, line
	}
	// validRanks wants a space before each token: give it the bracket's
	// position, checked as if it were one.
	ranks := line[1:end]
	if len(ranks) == 0 || ranks[0] == ' ' || !validRanksAfter(ranks) {
		return Header{}, line
	}
	return Header{Ranks: ranks}, line[end+2:]
}

// validRanksAfter is validRanks for a sequence that starts with a token.
func validRanksAfter(b []byte) bool {
	for {
		tok, rest, more := bytes.Cut(b, []byte{' '})
		if !validRank(tok) {
			return false
		}
		if !more {
			return true
		}
		b = rest
	}
}

// isMonthDay reports whether b looks like "01-02 15:04:05".
func isMonthDay(b []byte) bool {
	return len(b) == len("01-02 15:04:05") && isDigits(b[0:2]) && b[2] == '-' && isDigits(b[3:5]) && b[5] == ' ' && isClock(b[6:])
}

// isStamp reports whether b looks like "2006-01-02 15:04:05".
func isStamp(b []byte) bool { return isStampSep(b, ' ') }

// isStampSep is isStamp with another separator between date and time.
func isStampSep(b []byte, sep byte) bool {
	for i, c := range b {
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
			if c != sep {
				return false
			}
		case 13, 16:
			if c != ':' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// validRanks reports whether b is a (possibly empty) sequence of
// " TOKEN<digits>" with known rank names.
func validRanks(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	if b[0] != ' ' {
		return false
	}
	return validRanksAfter(b[1:])
}

// validRank reports whether tok is one rank token, such as "TP3".
func validRank(tok []byte) bool {
	for _, name := range rankNames {
		if bytes.HasPrefix(tok, []byte(name)) {
			return isDigits(tok[len(name):])
		}
	}
	return false
}
