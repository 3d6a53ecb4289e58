// Package pystr reads Python string literals as Python's tokenizer does:
// every prefix (r, u, b, f, t and their pairs, in any case), single,
// double and triple quotes, every escape (\n, \xHH, \uHHHH, \UHHHHHHHH,
// \N{…}, octal, a backslash-newline), the rules of raw strings, and the
// replacement fields of f-strings and t-strings.
//
// It is the one string lexer of tailfix. Its callers are pyrepr, which
// reads the values of sglang's "server_args=ServerArgs(…)" line, and the
// Python-source reader of patterns behind "tailfix patterns learn". It is
// a leaf: it imports nothing of tailfix's, so that patterns, which
// imports nothing of ours but leaves, can use it.
//
// Read is lenient where Python would raise a SyntaxError but the text
// still has a plain meaning: an escape it does not know (\d, a \x without
// two hex digits, \u in bytes, \U00110000) keeps its backslash, as Python
// keeps an unknown escape, and a lone '}' in an f-string is text. Only a
// literal that does not end is an error.
package pystr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Prefix is the set of a literal's prefix letters.
type Prefix uint8

// The prefix letters.
const (
	Raw      Prefix = 1 << iota // r: a backslash is text
	Bytes                       // b: a bytes literal; \u, \U and \N are not escapes
	Format                      // f: an f-string, with {…} replacement fields
	Template                    // t: a t-string (Python 3.14), read as an f-string
	Unicode                     // u: no meaning since Python 3
)

// ParsePrefix returns the prefix that s spells: "", r, u, b, f, t, or one
// of the pairs br, rb, fr, rf, tr and rt, in any case. Any other word is
// not a prefix.
func ParsePrefix(s string) (Prefix, bool) {
	if len(s) > 2 {
		return 0, false
	}
	var p Prefix
	for i := 0; i < len(s); i++ {
		var l Prefix
		switch s[i] | 0x20 {
		case 'r':
			l = Raw
		case 'b':
			l = Bytes
		case 'f':
			l = Format
		case 't':
			l = Template
		case 'u':
			l = Unicode
		default:
			return 0, false
		}
		if p&l != 0 {
			return 0, false
		}
		p |= l
	}
	if len(s) == 2 && p&Raw == 0 {
		return 0, false // bf, ub, ft, ...: only r pairs with another letter
	}
	if p&Unicode != 0 && p != Unicode {
		return 0, false
	}
	return p, true
}

// Fields reports whether literals with this prefix have replacement
// fields: f-strings and t-strings.
func (p Prefix) Fields() bool { return p&(Format|Template) != 0 }

// PrefixStart returns where the literal whose opening quote is src[q]
// starts: at the longest valid prefix right before the quote, or at q.
// Whether the prefix is a word of its own (not the end of a name such
// as "xb") is the caller's concern.
func PrefixStart(src string, q int) int {
	for n := 2; n > 0; n-- {
		if q-n >= 0 {
			if _, ok := ParsePrefix(src[q-n : q]); ok {
				return q - n
			}
		}
	}
	return q
}

// Literal is a string literal read from source.
type Literal struct {
	Prefix Prefix
	Quote  byte // ' or "
	Triple bool
	// Start is the offset of the literal's first byte (its prefix, or its
	// opening quote) and End the offset after its closing quote:
	// src[Start:End] is the literal as written.
	Start, End int
	// Value is the literal's value: its text with escapes decoded. A bytes
	// literal's value is its bytes, which need not be UTF-8. When the
	// literal has fields, Value is its text with each field as Parts
	// gives it.
	Value string
	// Parts is the value piece by piece, literal text and fields, when the
	// literal has a field (a {…} of an f-string, or an \N{…} whose name is
	// not known here), and nil otherwise. Adjacent text is one part.
	Parts []Part
}

// Part is a piece of a literal's value: text, or a field whose value is
// known only when the program runs.
type Part struct {
	// Text is decoded literal text; it is empty for a field.
	Text string
	// Field is a field as written, with runs of white space made one
	// space: "{x!r:>10}", "\N{SOME NAME}". A debug field {x=} prints "x="
	// and the value's repr: it is the text "x=" and the field "{x!r}".
	Field string
}

// Errors returned, inside a *SyntaxError, by Read.
var (
	// ErrNotLiteral is returned by Read when no string literal starts at
	// the offset it was given: no quote, or letters that are not a prefix.
	ErrNotLiteral = errors.New("not a string literal")
	// ErrUnterminated is returned by Read when a literal has no closing
	// quote: the source ends first, or a line ends inside a literal that
	// is not triple-quoted.
	ErrUnterminated = errors.New("unterminated string literal")
	// ErrUnterminatedField is returned by Read when an f-string's
	// replacement field has no closing brace.
	ErrUnterminatedField = errors.New("unterminated f-string field")
)

// SyntaxError is a literal that cannot be read, and where.
type SyntaxError struct {
	// Offset is the byte offset in the source of what is not closed: the
	// opening quote of an unterminated literal (an inner one, for a
	// literal inside an f-string's field), or the '{' of an unterminated
	// field; for ErrNotLiteral, the offset Read was given.
	Offset int
	Err    error
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("byte %d: %v", e.Offset, e.Err) }

func (e *SyntaxError) Unwrap() error { return e.Err }

// Read reads the string literal that starts at src[i], at its prefix or at
// its opening quote. An error is a *SyntaxError.
//
// A literal without fields and without escapes is read without
// allocating: its Value is a substring of src.
func Read(src string, i int) (Literal, error) {
	q := i
	for q < len(src) && q-i <= 2 && src[q] != '\'' && src[q] != '"' {
		q++
	}
	if q >= len(src) || src[q] != '\'' && src[q] != '"' {
		return Literal{}, &SyntaxError{Offset: i, Err: ErrNotLiteral}
	}
	prefix, ok := ParsePrefix(src[i:q])
	if !ok {
		return Literal{}, &SyntaxError{Offset: i, Err: ErrNotLiteral}
	}
	r := reader{src: src, prefix: prefix, quote: src[q], open: q, body: q + 1}
	if q+2 < len(src) && src[q+1] == src[q] && src[q+2] == src[q] {
		r.triple, r.body = true, q+3
	}
	end, err := r.read()
	if err != nil {
		return Literal{}, err
	}
	return Literal{Prefix: prefix, Quote: r.quote, Triple: r.triple, Start: i, End: end,
		Value: r.value, Parts: r.parts}, nil
}

// reader reads one literal's body.
type reader struct {
	src    string
	prefix Prefix
	quote  byte
	triple bool
	open   int // offset of the opening quote
	body   int // offset of the body's first byte

	// text is the text read since the last field, once the value differs
	// from the source (copied); until then the value is src[body:i].
	text   []byte
	copied bool
	parts  []Part
	value  string
}

// copy makes text hold the value so far, the body up to i, so that what
// comes next can differ from the source.
func (r *reader) copy(i int) {
	if !r.copied {
		r.text = append(r.text, r.src[r.body:i]...)
		r.copied = true
	}
}

// byte1 adds a byte of the source, read as it is, to the value.
func (r *reader) byte1(c byte) {
	if r.copied {
		r.text = append(r.text, c)
	}
}

func (r *reader) field(i int, src string) {
	r.copy(i)
	if len(r.text) > 0 {
		r.parts = append(r.parts, Part{Text: string(r.text)})
		r.text = r.text[:0]
	}
	r.parts = append(r.parts, Part{Field: src})
}

func (r *reader) closesAt(i int) bool {
	if r.triple {
		return i+2 < len(r.src) && r.src[i] == r.quote && r.src[i+1] == r.quote && r.src[i+2] == r.quote
	}
	return r.src[i] == r.quote
}

func (r *reader) unterminated() error {
	return &SyntaxError{Offset: r.open, Err: ErrUnterminated}
}

// read reads the body from r.body and returns the offset after the
// closing quote.
func (r *reader) read() (int, error) {
	src := r.src
	raw, fields := r.prefix&Raw != 0, r.prefix.Fields()
	for i := r.body; ; {
		if i >= len(src) {
			return 0, r.unterminated()
		}
		c := src[i]
		if r.closesAt(i) {
			r.finish(i)
			if r.triple {
				return i + 3, nil
			}
			return i + 1, nil
		}
		switch {
		case c == '\n' && !r.triple:
			return 0, r.unterminated()
		case c == '\\':
			if i+1 >= len(src) {
				return 0, r.unterminated()
			}
			if !raw {
				i = r.escape(i)
				continue
			}
			// In a raw literal the backslash is text and the next byte
			// cannot close the literal; in a raw f-string a brace after
			// it still opens or closes a field.
			r.byte1('\\')
			if next := src[i+1]; fields && (next == '{' || next == '}') {
				i++
			} else {
				r.byte1(next)
				i += 2
			}
		case fields && c == '{':
			if i+1 < len(src) && src[i+1] == '{' {
				r.copy(i)
				r.text = append(r.text, '{')
				i += 2
				continue
			}
			end, lit, ph, err := r.replacement(i)
			if err != nil {
				return 0, err
			}
			r.copy(i)
			r.text = append(r.text, lit...)
			r.field(i, ph)
			i = end
		case fields && c == '}':
			// "}}" is one brace; a lone one is kept as it is.
			r.copy(i)
			r.text = append(r.text, '}')
			i++
			if i < len(src) && src[i] == '}' {
				i++
			}
		default:
			r.byte1(c)
			i++
		}
	}
}

// finish sets the value once the closing quote is at end.
func (r *reader) finish(end int) {
	switch {
	case !r.copied:
		r.value = r.src[r.body:end]
	case r.parts == nil:
		r.value = string(r.text)
	default:
		if len(r.text) > 0 {
			r.parts = append(r.parts, Part{Text: string(r.text)})
		}
		var b strings.Builder
		for _, p := range r.parts {
			b.WriteString(p.Text)
			b.WriteString(p.Field)
		}
		r.value = b.String()
	}
}

// simpleEscapes are the one-letter escapes.
var simpleEscapes = [256]byte{'a': 7, 'b': 8, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11,
	'\\': '\\', '\'': '\'', '"': '"'}

// unicodeNames are the \N{…} names common in messages. Another name
// makes the escape a field: its character is not known here.
var unicodeNames = map[string]rune{
	"EM DASH": '—', "EN DASH": '–', "BULLET": '•', "HORIZONTAL ELLIPSIS": '…', "DEGREE SIGN": '°',
	"RIGHTWARDS ARROW": '→', "MULTIPLICATION SIGN": '×', "CHECK MARK": '✓', "NO-BREAK SPACE": '\u00a0',
	"WARNING SIGN": '⚠', "GREEK SMALL LETTER MU": 'μ', "MICRO SIGN": 'µ',
}

// escape decodes the escape whose backslash is src[i], with src[i+1]
// present, and returns the offset after it.
func (r *reader) escape(i int) int {
	src := r.src
	isBytes := r.prefix&Bytes != 0
	c := src[i+1]
	switch c {
	case '\n':
		r.copy(i) // a line continuation: nothing
		return i + 2
	case '\r':
		r.copy(i)
		if i+2 < len(src) && src[i+2] == '\n' {
			return i + 3
		}
		return i + 2
	case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\', '\'', '"':
		r.copy(i)
		r.text = append(r.text, simpleEscapes[c])
		return i + 2
	case '0', '1', '2', '3', '4', '5', '6', '7':
		j := i + 1
		for j < len(src) && j < i+4 && src[j] >= '0' && src[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseUint(src[i+1:j], 8, 32)
		r.copy(i)
		if isBytes {
			r.text = append(r.text, byte(v)) // Python keeps the low byte of \400 to \777
		} else {
			r.text = utf8.AppendRune(r.text, rune(v))
		}
		return j
	case 'x', 'u', 'U':
		width := 2
		if c == 'u' {
			width = 4
		} else if c == 'U' {
			width = 8
		}
		if c != 'x' && isBytes || i+2+width > len(src) {
			break
		}
		// A surrogate (\udcff) has no UTF-8 form: it is kept as written,
		// as Python's stderr writes it (errors="backslashreplace").
		v, err := strconv.ParseUint(src[i+2:i+2+width], 16, 32)
		if err != nil || !isBytes && !utf8.ValidRune(rune(v)) {
			break
		}
		r.copy(i)
		if isBytes {
			r.text = append(r.text, byte(v))
		} else {
			r.text = utf8.AppendRune(r.text, rune(v))
		}
		return i + 2 + width
	case 'N':
		if isBytes || i+2 >= len(src) || src[i+2] != '{' {
			break
		}
		j := strings.IndexByte(src[i+3:], '}')
		if j < 0 {
			break
		}
		name := src[i+3 : i+3+j]
		if ch, ok := unicodeNames[strings.ToUpper(name)]; ok {
			r.copy(i)
			r.text = utf8.AppendRune(r.text, ch)
		} else {
			r.field(i, src[i:i+4+j])
		}
		return i + 4 + j
	}
	// Not an escape: the backslash stays, and the next byte is read on
	// its own (it may close the literal, or open an f-string's field).
	r.byte1('\\')
	return i + 1
}

// replacement reads the f-string replacement field opening at src[i] ==
// '{'. It returns the offset after its closing brace, the text it prints
// before its value (the expression and "=" of a {x=} debug field), and the
// field as Part.Field gives it.
func (r *reader) replacement(i int) (end int, lit, ph string, err error) {
	src := r.src
	start := i
	unterminated := &SyntaxError{Offset: start, Err: ErrUnterminatedField}
	i++
	exprStart, exprEnd := i, -1
	depth := 0
	spec := false
scan:
	for {
		if i >= len(src) {
			return 0, "", "", unterminated
		}
		c := src[i]
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']':
			depth--
			i++
		case c == '}':
			if depth > 0 {
				depth--
				i++
				continue
			}
			exprEnd = i
			break scan
		case c == '\'' || c == '"':
			// A literal inside the expression, of either quote since
			// Python 3.12.
			in, err := Read(src, i)
			if err != nil {
				return 0, "", "", err
			}
			i = in.End
		case identStart(c):
			j := i
			for j < len(src) && identPart(src[j]) {
				j++
			}
			if j < len(src) && (src[j] == '"' || src[j] == '\'') {
				if _, ok := ParsePrefix(src[i:j]); ok {
					in, err := Read(src, i)
					if err != nil {
						return 0, "", "", err
					}
					j = in.End
				}
			}
			i = j
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '!' && depth == 0 && i+1 < len(src) && src[i+1] != '=':
			exprEnd = i
			i++
			for i < len(src) && identPart(src[i]) {
				i++
			}
			for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
				i++ // "{x!s  }": white space may follow the conversion
			}
			switch {
			case i < len(src) && src[i] == ':':
				spec = true
			case i >= len(src) || src[i] != '}':
				return 0, "", "", unterminated // "{x!r" and then no brace
			}
			break scan
		case c == ':' && depth == 0:
			exprEnd = i
			spec = true
			break scan
		case c == '\\' && i+1 < len(src):
			i += 2
		default:
			i++
		}
	}
	if spec {
		// The format spec: literal text and nested {fields}, up to the
		// closing brace.
		i++
		for {
			if i >= len(src) || r.closesAt(i) || (!r.triple && src[i] == '\n') {
				return 0, "", "", unterminated
			}
			c := src[i]
			if c == '{' {
				e, _, _, err := r.replacement(i)
				if err != nil {
					return 0, "", "", err
				}
				i = e
				continue
			}
			if c == '\\' && r.prefix&Raw == 0 && i+1 < len(src) {
				i += 2
				continue
			}
			i++
			if c == '}' {
				break
			}
		}
	} else {
		i++ // the closing brace
	}
	end = i
	expr := src[exprStart:exprEnd]
	ph = collapseSpace(src[start:end])
	if t := strings.TrimRight(expr, " \t\r\n"); len(t) >= 2 && t[len(t)-1] == '=' && !strings.ContainsRune("=!<>", rune(t[len(t)-2])) {
		// {x=} prints "x=" and then the value (its repr unless a
		// conversion or format spec says otherwise).
		rest := src[exprEnd : end-1]
		if rest == "" {
			rest = "!r"
		}
		return end, expr, "{" + strings.TrimSpace(t[:len(t)-1]) + collapseSpace(rest) + "}", nil
	}
	return end, "", ph, nil
}

func identStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func identPart(c byte) bool { return identStart(c) || (c >= '0' && c <= '9') }

func collapseSpace(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
