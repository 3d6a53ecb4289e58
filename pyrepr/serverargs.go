package pyrepr

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/pystr"
)

// ServerArgs is sglang's configuration as a log shows it: the
// "server_args=ServerArgs(...)" line that sglang prints once at start-up.
// Its fields are the argparse dests (tp_size, cuda_graph_config, …).
type ServerArgs struct {
	Fields map[string]Value
	// Order is the fields' names in the order the line gave them.
	Order []string
	// Complete is true when the whole repr was read, up to its closing
	// parenthesis, with nothing skipped.
	Complete bool
}

// serverArgsKey is what comes before the repr in sglang's log line.
const serverArgsKey = "server_args="

// pyMaxDepth bounds the nesting of brackets the parser descends into. A
// value nested deeper is damage: its field is skipped.
const pyMaxDepth = 64

// FindServerArgs returns the text after "server_args=" in a log line, if
// the line has it: "ServerArgs(...)", up to the end of the line. The key
// must start a word and be followed by "ServerArgs(", so that source lines
// in a traceback ("Engine(server_args=server_args)") are not taken for it.
// The line should be normalized first (ANSI escapes removed); any prefix
// before the key, such as sglang's "[time TP0] " header, is ignored.
func FindServerArgs(line []byte) (string, bool) {
	for off := 0; off < len(line); {
		i := bytes.Index(line[off:], []byte(serverArgsKey))
		if i < 0 {
			break
		}
		i += off
		j := i + len(serverArgsKey)
		if (i == 0 || !pyIdentByte(line[i-1])) && bytes.HasPrefix(line[j:], []byte("ServerArgs(")) {
			return string(bytes.TrimRight(line[j:], "\r\n")), true
		}
		off = i + 1
	}
	return "", false
}

// ParseServerArgs parses the text after "server_args=" (starting at
// "ServerArgs(") and returns what it could read. A truncated or damaged
// line keeps every field parsed before the damage, with Complete false.
//
// A field is kept only when its value is followed by the comma or the
// closing parenthesis after it, so a line cut inside a value ("tp_size=1"
// of "tp_size=16") never gives that value. A value the parser does not
// understand is skipped, with its field, up to the next ", name=" outside
// brackets and quotes, and parsing goes on from there. ParseServerArgs
// never panics and its work is linear in the length of s.
func ParseServerArgs(s string) *ServerArgs {
	a := &ServerArgs{Fields: map[string]Value{}}
	s = strings.TrimLeft(s, " \t")
	s = strings.TrimPrefix(s, serverArgsKey)
	p := &pyParser{s: s}
	if _, ok := p.dottedName(); !ok || p.eof() || s[p.i] != '(' {
		return a
	}
	p.i++
	damaged := false
	for {
		p.space()
		if p.eof() {
			return a
		}
		if s[p.i] == ')' {
			p.i++
			break
		}
		p.depth = 0
		name, ok := p.keyword()
		var v Value
		if ok {
			v, ok = p.value()
		}
		if ok {
			p.space()
			if !p.eof() && (s[p.i] == ',' || s[p.i] == ')') {
				a.set(name, v)
				if s[p.i] == ')' {
					p.i++
					break
				}
				p.i++
				continue
			}
		}
		if p.eof() {
			return a // cut inside the field: it is lost
		}
		damaged = true
		if !p.resync() {
			return a
		}
	}
	a.Complete = !damaged && strings.TrimRight(s[p.i:], " \t\r\n") == ""
	return a
}

func (a *ServerArgs) set(name string, v Value) {
	if _, seen := a.Fields[name]; !seen {
		a.Order = append(a.Order, name)
	}
	a.Fields[name] = v
}

// Lookup returns a field's value. A dotted name reaches into nested calls,
// dicts and lists: "cuda_graph_config.decode.max_bs",
// "default_chat_template_kwargs.enable_thinking", "cuda_graph_config.decode.bs.0".
func (a *ServerArgs) Lookup(name string) (Value, bool) {
	if a == nil {
		return nil, false
	}
	if v, ok := a.Fields[name]; ok {
		return v, true
	}
	head, rest, dotted := strings.Cut(name, ".")
	if !dotted {
		return nil, false
	}
	v, ok := a.Fields[head]
	for ok {
		var more bool
		head, rest, more = strings.Cut(rest, ".")
		v, ok = pyChild(v, head)
		if !more {
			break
		}
	}
	return v, ok
}

// pyChild returns the member of a call, dict or list that key names.
func pyChild(v Value, key string) (Value, bool) {
	switch x := v.(type) {
	case *Call:
		if x == nil {
			return nil, false
		}
		c, ok := x.Args[key]
		return c, ok
	case map[string]Value:
		c, ok := x[key]
		return c, ok
	case []Value:
		n, err := strconv.Atoi(key)
		if err != nil || n < 0 || n >= len(x) {
			return nil, false
		}
		return x[n], true
	}
	return nil, false
}

// Int returns an integer field. A float with an integral value (300.0)
// answers too; None, bools and strings do not.
func (a *ServerArgs) Int(name string) (int64, bool) {
	v, _ := a.Lookup(name)
	return IntValue(v)
}

// Float returns a numeric field, integer or float.
func (a *ServerArgs) Float(name string) (float64, bool) {
	v, _ := a.Lookup(name)
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// String returns a string field. None is not a string.
func (a *ServerArgs) String(name string) (string, bool) {
	v, _ := a.Lookup(name)
	s, ok := v.(string)
	return s, ok
}

// Bool returns a True or False field.
func (a *ServerArgs) Bool(name string) (bool, bool) {
	v, _ := a.Lookup(name)
	b, ok := v.(bool)
	return b, ok
}

// Flag returns a field's value as it would be written on a command line:
// strings unquoted (an enum-like "<Enum.X: 'x'>" as x), numbers as Python
// prints them, None, True and False as words, lists space-separated, dicts
// as JSON (what sglang's JSON-typed flags take) and nested calls as their
// repr. It returns "" for a field the line did not give. Whether a
// store_true flag takes a value is the caller's concern.
func (a *ServerArgs) Flag(name string) string {
	v, ok := a.Lookup(name)
	if !ok {
		return ""
	}
	return pyFlag(v)
}

// FlagText writes a value as it would be given on a command line, as
// ServerArgs.Flag does.
func FlagText(v Value) string { return pyFlag(v) }

func pyFlag(v Value) string {
	switch x := v.(type) {
	case string:
		if e, ok := pyEnumValue(x); ok {
			return pyFlag(e)
		}
		return x
	case []Value:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyFlag(e)
		}
		return strings.Join(parts, " ")
	case map[string]Value:
		var b strings.Builder
		pyJSON(&b, x)
		return b.String()
	}
	return Repr(v)
}

// pyEnumValue returns the value of an enum's repr, "<Color.RED: 'red'>".
func pyEnumValue(s string) (Value, bool) {
	if len(s) < 2 || s[0] != '<' || s[len(s)-1] != '>' {
		return nil, false
	}
	p := &pyParser{s: s[1 : len(s)-1]}
	if _, ok := p.dottedName(); !ok || !strings.HasPrefix(p.s[p.i:], ": ") {
		return nil, false
	}
	p.i += 2
	v, ok := p.value()
	if !ok || p.i != len(p.s) {
		return nil, false
	}
	return v, true
}

// pyJSON writes v as JSON. NaN and the infinities are written as Python's
// json module reads them.
func pyJSON(b *strings.Builder, v Value) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		switch {
		case math.IsNaN(x):
			b.WriteString("NaN")
		case math.IsInf(x, 1):
			b.WriteString("Infinity")
		case math.IsInf(x, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(pyFloat(x))
		}
	case []Value:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			pyJSON(b, e)
		}
		b.WriteByte(']')
	case map[string]Value:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteString(", ")
			}
			jsonString(b, k)
			b.WriteString(": ")
			pyJSON(b, x[k])
		}
		b.WriteByte('}')
	case string:
		jsonString(b, x)
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	default:
		jsonString(b, Repr(v))
	}
}

func jsonString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

func sortedKeys(m map[string]Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Repr renders the configuration back as a repr,
// "ServerArgs(name=value, ...)", that ParseServerArgs reads back to the
// same fields.
func (a *ServerArgs) Repr() string {
	var b strings.Builder
	b.WriteString("ServerArgs(")
	for i, name := range a.Order {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteByte('=')
		pyRepr(&b, a.Fields[name])
	}
	b.WriteByte(')')
	return b.String()
}

// Repr renders a value as Python would print it. Lists, tuples and sets
// all come out as lists, dicts with their keys sorted and as strings.
func Repr(v Value) string {
	var b strings.Builder
	pyRepr(&b, v)
	return b.String()
}

func pyRepr(b *strings.Builder, v Value) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(pyFloat(x))
	case string:
		pyQuote(b, x)
	case []Value:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			pyRepr(b, e)
		}
		b.WriteByte(']')
	case map[string]Value:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteString(", ")
			}
			pyQuote(b, k)
			b.WriteString(": ")
			pyRepr(b, x[k])
		}
		b.WriteByte('}')
	case *Call:
		if x == nil {
			b.WriteString("None")
			return
		}
		b.WriteString(x.Name)
		b.WriteByte('(')
		for i, k := range x.Order {
			if i > 0 {
				b.WriteString(", ")
			}
			if !pyPositional(k) {
				b.WriteString(k)
				b.WriteByte('=')
			}
			pyRepr(b, x.Args[k])
		}
		b.WriteByte(')')
	default:
		pyQuote(b, fmt.Sprint(v))
	}
}

// pyPositional reports whether a Call's key stands for a positional argument.
func pyPositional(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	return true
}

// pyFloat formats f as Python's repr does: 1.0, 0.002, 1e-05, 1e+16, inf.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// pyQuote writes s as a Python string literal. Bytes that are not valid
// UTF-8 are written as they are, so that the literal reads back to s.
func pyQuote(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == q || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
}

// pyParser reads Python literals from s. On failure, i is where the
// failure was found and depth the number of brackets opened (and read)
// before i and not yet closed, so that resync can go on from there.
type pyParser struct {
	s     string
	i     int
	depth int
}

func (p *pyParser) eof() bool { return p.i >= len(p.s) }

func (p *pyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func pyIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func pyIdentByte(c byte) bool {
	return pyIdentStart(c) || c >= '0' && c <= '9'
}

func pyDigit(c byte) bool { return c >= '0' && c <= '9' }

// ident reads an identifier.
func (p *pyParser) ident() (string, bool) {
	start := p.i
	if p.eof() || !pyIdentStart(p.s[p.i]) {
		return "", false
	}
	for p.i < len(p.s) && pyIdentByte(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i], true
}

// dottedName reads an identifier or a dotted name: torch.bfloat16.
func (p *pyParser) dottedName() (string, bool) {
	start := p.i
	if _, ok := p.ident(); !ok {
		return "", false
	}
	for p.i+1 < len(p.s) && p.s[p.i] == '.' && pyIdentStart(p.s[p.i+1]) {
		p.i++
		p.ident()
	}
	return p.s[start:p.i], true
}

// keyword reads "name=" and returns the name. On failure i is where it
// failed.
func (p *pyParser) keyword() (string, bool) {
	name, ok := p.ident()
	if !ok {
		return "", false
	}
	p.space()
	if p.eof() || p.s[p.i] != '=' || p.i+1 < len(p.s) && p.s[p.i+1] == '=' {
		return "", false
	}
	p.i++
	return name, true
}

// keywordAt reports whether "name=" starts at i (after spaces), and
// returns the name and the index after the '='.
func keywordAt(s string, i int) (string, int, bool) {
	p := pyParser{s: s, i: i}
	p.space()
	name, ok := p.keyword()
	return name, p.i, ok
}

// resync skips damage: it goes on from i, past brackets and quoted strings,
// to the next ", name=" outside brackets, and leaves i after the comma. At
// a closing parenthesis outside brackets, the end of the repr, it leaves i
// there. It returns false when the line ends first.
func (p *pyParser) resync() bool {
	s, d := p.s, p.depth
	for i := p.i; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			if pyStringStart(s, i) {
				end, ok := pyStringEnd(s, i)
				if !ok {
					p.i = len(s)
					return false
				}
				i = end - 1
			}
		case '(', '[', '{':
			d++
		case ')', ']', '}':
			if d > 0 {
				d--
			} else if c == ')' {
				p.i = i
				return true
			}
		case ',':
			if d == 0 {
				if _, _, ok := keywordAt(s, i+1); ok {
					p.i = i + 1
					return true
				}
			}
		}
	}
	p.i = len(s)
	return false
}

// pyStringStart reports whether the quote at s[i] can open a string: it
// stands where a value starts, possibly after a prefix such as b or r.
// An apostrophe inside a word ("it's") cannot.
func pyStringStart(s string, i int) bool {
	k := pystr.PrefixStart(s, i) - 1
	return k < 0 || strings.IndexByte("=([{,: \t<", s[k]) >= 0
}

// pyStringEnd returns the index after the string literal whose opening
// quote is s[i].
func pyStringEnd(s string, i int) (int, bool) {
	lit, err := pystr.Read(s, i)
	if err != nil {
		return len(s), false
	}
	return lit.End, true
}

// value reads one literal.
func (p *pyParser) value() (Value, bool) {
	p.space()
	if p.eof() {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		return p.str()
	case c == '[':
		return p.list()
	case c == '(':
		return p.tuple()
	case c == '{':
		return p.brace()
	case c == '<':
		return p.angle()
	case c == '-' || c == '+' || c == '.' || pyDigit(c):
		return p.number()
	case pyIdentStart(c):
		return p.named()
	}
	return nil, false
}

// open enters a bracket, unless that nests too deep.
func (p *pyParser) open() bool {
	if p.depth >= pyMaxDepth {
		return false
	}
	p.depth++
	p.i++
	return true
}

func (p *pyParser) close() {
	p.depth--
	p.i++
}

// items reads values separated by commas up to the closing byte, after
// the opening one. A trailing comma is allowed.
func (p *pyParser) items(end byte) ([]Value, bool, bool) {
	out := []Value{}
	comma := false
	for {
		p.space()
		if p.eof() {
			return nil, false, false
		}
		if p.s[p.i] == end {
			p.close()
			return out, comma, true
		}
		v, ok := p.value()
		if !ok {
			return nil, false, false
		}
		out = append(out, v)
		p.space()
		if p.eof() {
			return nil, false, false
		}
		switch p.s[p.i] {
		case ',':
			comma = true
			p.i++
		case end:
		default:
			return nil, false, false
		}
	}
}

func (p *pyParser) list() (Value, bool) {
	if !p.open() {
		return nil, false
	}
	out, _, ok := p.items(']')
	return out, ok
}

// tuple reads (), (1,) and (1, 2) as lists, and a parenthesized value (1)
// as the value.
func (p *pyParser) tuple() (Value, bool) {
	if !p.open() {
		return nil, false
	}
	out, comma, ok := p.items(')')
	if !ok {
		return nil, false
	}
	if len(out) == 1 && !comma {
		return out[0], true
	}
	return out, true
}

// brace reads a dict or a set.
func (p *pyParser) brace() (Value, bool) {
	if !p.open() {
		return nil, false
	}
	p.space()
	if !p.eof() && p.s[p.i] == '}' {
		p.close()
		return map[string]Value{}, true
	}
	start := p.i
	first, ok := p.value()
	if !ok {
		return nil, false
	}
	keyEnd := p.i
	p.space()
	if p.eof() {
		return nil, false
	}
	if p.s[p.i] != ':' {
		// A set: go on with its items after the first.
		switch p.s[p.i] {
		case '}':
			p.close()
			return []Value{first}, true
		case ',':
			p.i++
		default:
			return nil, false
		}
		rest, _, ok := p.items('}')
		if !ok {
			return nil, false
		}
		return append([]Value{first}, rest...), true
	}
	m := map[string]Value{}
	key, keyText := first, p.s[start:keyEnd]
	for {
		p.i++ // ':'
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		if k, isStr := key.(string); isStr && pyStringLiteral(keyText) {
			m[k] = v
		} else {
			m[keyText] = v
		}
		p.space()
		if p.eof() {
			return nil, false
		}
		switch p.s[p.i] {
		case '}':
			p.close()
			return m, true
		case ',':
			p.i++
		default:
			return nil, false
		}
		p.space()
		if !p.eof() && p.s[p.i] == '}' {
			p.close()
			return m, true
		}
		start = p.i
		if key, ok = p.value(); !ok {
			return nil, false
		}
		keyText = strings.TrimLeft(p.s[start:p.i], " \t")
		p.space()
		if p.eof() || p.s[p.i] != ':' {
			return nil, false
		}
	}
}

// pyStringLiteral reports whether a dict key's text is a string literal,
// 'k' or b'k', rather than a value whose repr is kept as the key.
func pyStringLiteral(text string) bool {
	q := strings.IndexAny(text[:min(len(text), 3)], `'"`)
	if q < 0 {
		return false
	}
	_, ok := pystr.ParsePrefix(text[:q])
	return ok
}

// angle reads a repr in angle brackets, <Color.RED: 'red'>, as its text.
func (p *pyParser) angle() (Value, bool) {
	s, start, d := p.s, p.i, 0
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '<':
			d++
		case '>':
			if d--; d == 0 {
				p.i = i + 1
				return s[start:p.i], true
			}
		case '\'', '"':
			if pyStringStart(s, i) {
				end, ok := pyStringEnd(s, i)
				if !ok {
					p.i = len(s)
					return nil, false
				}
				i = end - 1
			}
		}
	}
	p.i = len(s)
	return nil, false
}

// number reads an int or a float, inf and nan included.
func (p *pyParser) number() (Value, bool) {
	s, start := p.s, p.i
	i := start
	if s[i] == '-' || s[i] == '+' {
		i++
	}
	if rest := s[i:]; strings.HasPrefix(rest, "inf") || strings.HasPrefix(rest, "nan") {
		if len(rest) > 3 && pyIdentByte(rest[3]) {
			p.i = i + 3
			return nil, false
		}
		p.i = i + 3
		if rest[0] == 'n' {
			return math.NaN(), true
		}
		if s[start] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	digits := 0
	for i < len(s) && pyDigit(s[i]) {
		i++
		digits++
	}
	float := false
	if i < len(s) && s[i] == '.' {
		float = true
		i++
		for i < len(s) && pyDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		p.i = i
		return nil, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		if j < len(s) && pyDigit(s[j]) {
			for j < len(s) && pyDigit(s[j]) {
				j++
			}
			i, float = j, true
		}
	}
	p.i = i
	if i < len(s) && (pyIdentByte(s[i]) || s[i] == '.') {
		return nil, false // 0x10, 1j, 1.2.3, a cut exponent
	}
	text := s[start:i]
	if !float {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, true
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && err.(*strconv.NumError).Err != strconv.ErrRange {
		return nil, false
	}
	return f, true
}

// named reads what starts with a name: None, True, False, inf, nan, a
// prefixed string (b'..'), a call (Name(...)) or a bare name.
func (p *pyParser) named() (Value, bool) {
	start := p.i
	name, _ := p.dottedName()
	if !p.eof() && (p.s[p.i] == '\'' || p.s[p.i] == '"') && len(name) <= 2 {
		if prefix, ok := pystr.ParsePrefix(name); ok && !prefix.Fields() {
			p.i = start
			return p.str()
		}
		return nil, false // f'..' and t'..' are no values
	}
	if !p.eof() && p.s[p.i] == '(' {
		return p.call(name)
	}
	switch name {
	case "None":
		return nil, true
	case "True":
		return true, true
	case "False":
		return false, true
	case "inf":
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	return name, true
}

// call reads Name(args...) after its name.
func (p *pyParser) call(name string) (Value, bool) {
	if !p.open() {
		return nil, false
	}
	c := &Call{Name: name, Args: map[string]Value{}}
	positional := 0
	for {
		p.space()
		if p.eof() {
			return nil, false
		}
		if p.s[p.i] == ')' {
			p.close()
			break
		}
		key, after, ok := keywordAt(p.s, p.i)
		if ok {
			p.i = after
		} else {
			key = strconv.Itoa(positional)
			positional++
		}
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		if _, seen := c.Args[key]; !seen {
			c.Order = append(c.Order, key)
		}
		c.Args[key] = v
		p.space()
		if p.eof() {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ')':
		default:
			return nil, false
		}
	}
	switch {
	case (name == "set" || name == "frozenset") && len(c.Order) == 0:
		return []Value{}, true
	case name == "frozenset" && len(c.Order) == 1 && c.Order[0] == "0":
		if l, ok := c.Args["0"].([]Value); ok {
			return l, true
		}
	}
	return c, true
}

// str reads the string literal that starts at i, at its prefix or its
// quote.
func (p *pyParser) str() (Value, bool) {
	lit, err := pystr.Read(p.s, p.i)
	if err != nil {
		p.i = len(p.s)
		return nil, false
	}
	p.i = lit.End
	return lit.Value, true
}
