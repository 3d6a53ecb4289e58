package patterns

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A pack of thousands of records is read at every start of a command given
// it (--patterns DIR), and a general YAML parser takes about a CPU-second
// per ten thousand records: most of the start-up. parseYAMLFast reads the
// layout packs are written in (a block list of records at the margin, with
// plain, quoted, folded and literal scalars, block and flow lists, and flow
// maps such as where:) in one pass over the text, the strings of the
// records cut from one copy of it. Anything else it does not guess at: it
// reports !ok, and ParseYAML reads the file with the YAML parser, whose
// errors name the record and field at fault. Where it says ok, its records
// are those the YAML parser would decode (TestParseYAMLFastAgrees, and
// FuzzParseYAMLFast).

// yline is one line of a pack file that is neither blank nor a comment.
type yline struct {
	indent int    // spaces before text
	text   string // without the indent; a "- " item's own content is a line of its own
	n      int    // 1-based line number
	item   bool   // a "-" that starts a list item; its content is the next line
	start  int    // offset of the line in the file (block scalars read from there)
}

// ynode is a parsed value: a scalar, a list or a map.
type ynode struct {
	kind  byte // 's', 'l' or 'm'
	plain bool // a plain scalar, as opposed to quoted or block
	s     string
	list  []ynode
	keys  []string
	vals  []ynode
	line  int
}

// yparser holds a file's text, and the lines of the record it is at.
type yparser struct {
	text  string
	lines []yline // the current record's
	i     int
	ok    bool
	// The children of the current record's lists and maps, in slices
	// used again for the next record: a record's tree is gone once its
	// strings are decoded, and making it anew for each of a hundred
	// thousand records was most of the garbage of loading them.
	nodes               [][]ynode
	keys                [][]string
	nodesUsed, keysUsed int
}

// children returns an empty slice for a list's or map's values, and its
// place to hand back (keep) once filled.
func (p *yparser) children() (int, []ynode) {
	if p.nodesUsed == len(p.nodes) {
		p.nodes = append(p.nodes, make([]ynode, 0, 12))
	}
	p.nodesUsed++
	return p.nodesUsed - 1, p.nodes[p.nodesUsed-1][:0]
}

// keyList is children for a map's keys.
func (p *yparser) keyList() (int, []string) {
	if p.keysUsed == len(p.keys) {
		p.keys = append(p.keys, make([]string, 0, 12))
	}
	p.keysUsed++
	return p.keysUsed - 1, p.keys[p.keysUsed-1][:0]
}

// parseYAMLFast parses a pack file written in the common layout; ok is
// false when it is not, or when anything in it needs the YAML parser.
// Records are parsed one at a time: what is kept of the file is the
// records' strings, cut from one copy of it.
func parseYAMLFast(name string, data []byte) (recs []*Record, ok bool) {
	text := string(data)
	if !printable(text) {
		return nil, false
	}
	return parseFast(name, text, 1, nil)
}

// parseFast is parseYAMLFast on text whose first line is numbered line.
// span, when not nil, is given each record with its bytes in text (from the
// end of the record before it) and the number of their first line.
func parseFast(name, text string, line int, span func(r *Record, off, end, n int)) (recs []*Record, ok bool) {
	p := &yparser{text: text}
	slab := make([]Record, 0, strings.Count(text, "\n-")+1)
	type where struct{ off, end, n int }
	var spans []where
	for off, n := 0, line; off < len(p.text); {
		start, startN := off, n
		if off, n, ok = p.lexRecord(off, n); !ok {
			return nil, false
		}
		if len(p.lines) == 0 {
			continue // comments at the end
		}
		if !p.lines[0].item || p.lines[0].indent != 0 {
			return nil, false // not a block list at the margin
		}
		p.i, p.ok = 0, true
		p.nodesUsed, p.keysUsed = 0, 0
		top := p.node(0)
		if !p.ok || p.i != len(p.lines) || top.kind != 'l' || len(top.list) != 1 {
			return nil, false
		}
		slab = append(slab, Record{})
		r := &slab[len(slab)-1]
		if !decodeRecord(&top.list[0], r) {
			return nil, false
		}
		r.Origin, r.Line = name, top.list[0].line
		fillNeedles(r)
		if span != nil {
			spans = append(spans, where{start, off, startN})
		}
	}
	if len(slab) == 0 {
		return nil, true
	}
	recs = make([]*Record, len(slab))
	for i := range slab {
		recs[i] = &slab[i]
		if span != nil {
			span(recs[i], spans[i].off, spans[i].end, spans[i].n)
		}
	}
	return recs, true
}

// printable reports whether data is UTF-8 text of the characters YAML
// allows, with no tab, CR or byte order mark.
func printable(data string) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < ' ' && c != '\n' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(data[i:])
		if r == utf8.RuneError || r >= 0x80 && r <= 0x9f && r != 0x85 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += n
	}
	return true
}

// lexRecord reads the lines of one record, from off (line n) to the next
// item at the margin, each "- " item split into its dash and its content;
// it returns where it stopped. ok is false when a line needs the YAML
// parser.
func (p *yparser) lexRecord(off, n int) (next, nextN int, ok bool) {
	p.lines = p.lines[:0]
	for ; off < len(p.text); n++ {
		start := off
		l := p.text[off:]
		if i := strings.IndexByte(l, '\n'); i >= 0 {
			l, off = l[:i], off+i+1
		} else {
			off = len(p.text)
		}
		t := strings.TrimLeft(l, " ")
		if t == "" || t[0] == '#' {
			continue
		}
		ind := len(l) - len(t)
		if ind == 0 {
			if strings.HasPrefix(t, "---") || strings.HasPrefix(t, "...") || t[0] == '%' {
				return 0, 0, false // documents and directives
			}
			if len(p.lines) > 0 {
				return start, n, true // the next record
			}
		}
		for t == "-" || strings.HasPrefix(t, "- ") {
			p.lines = append(p.lines, yline{indent: ind, text: "-", n: n, item: true, start: start})
			rest := strings.TrimLeft(t[1:], " ")
			if rest == "" || rest[0] == '#' {
				return 0, 0, false // an item whose value starts on the next line
			}
			ind += len(t) - len(rest)
			t = rest
		}
		p.lines = append(p.lines, yline{indent: ind, text: t, n: n, start: start})
	}
	return off, n, true
}

// node parses the value whose lines start at p.i with the given indent.
func (p *yparser) node(indent int) ynode {
	if !p.ok || p.i >= len(p.lines) || p.lines[p.i].indent != indent {
		p.ok = false
		return ynode{}
	}
	l := p.lines[p.i]
	if l.item {
		return p.seq(indent)
	}
	if _, _, isKey := cutKey(l.text); isKey {
		return p.mapping(indent)
	}
	// A scalar alone on its lines: a list item's value.
	p.i++
	v, ok := p.inlineValue(l.text)
	if !ok || p.deeper(indent) {
		p.ok = false
	}
	v.line = l.n
	return v
}

// deeper reports whether the next line is indented past indent, which
// would continue a scalar that the fast path read as ended.
func (p *yparser) deeper(indent int) bool {
	return p.i < len(p.lines) && p.lines[p.i].indent > indent
}

// seq parses a block list whose dashes are at indent.
func (p *yparser) seq(indent int) ynode {
	at, list := p.children()
	n := ynode{kind: 'l', line: p.lines[p.i].n, list: list}
	defer func() { p.nodes[at] = n.list }()
	for p.ok && p.i < len(p.lines) && p.lines[p.i].indent == indent {
		l := p.lines[p.i]
		if !l.item {
			p.ok = false // a key beside the list's items
			break
		}
		p.i++
		if p.i >= len(p.lines) || p.lines[p.i].start != l.start {
			p.ok = false
			break
		}
		v := p.node(p.lines[p.i].indent)
		v.line = l.n
		n.list = append(n.list, v)
	}
	if p.ok && p.deeper(indent) {
		p.ok = false
	}
	return n
}

// mapping parses a block map whose keys are at indent.
func (p *yparser) mapping(indent int) ynode {
	ka, keys := p.keyList()
	va, vals := p.children()
	n := ynode{kind: 'm', line: p.lines[p.i].n, keys: keys, vals: vals}
	defer func() { p.keys[ka], p.nodes[va] = n.keys, n.vals }()
	for p.ok && p.i < len(p.lines) && p.lines[p.i].indent == indent {
		l := p.lines[p.i]
		key, rest, isKey := cutKey(l.text)
		if l.item || !isKey {
			p.ok = false
			break
		}
		for _, k := range n.keys {
			if k == key {
				p.ok = false // a key defined twice: the YAML parser's error
			}
		}
		p.i++
		var v ynode
		switch {
		case rest == "" || rest[0] == '#':
			// The value is on the lines below: deeper, or a list at the
			// key's own indent.
			if p.i < len(p.lines) && (p.lines[p.i].indent > indent || p.lines[p.i].indent == indent && p.lines[p.i].item) {
				v = p.node(p.lines[p.i].indent)
			} else {
				p.ok = false // null
			}
		case rest[0] == '|' || rest[0] == '>':
			v = p.block(l, rest, indent)
		default:
			var ok bool
			if v, ok = p.inlineValue(rest); !ok || p.deeper(indent) {
				p.ok = false
			}
		}
		v.line = l.n
		n.keys, n.vals = append(n.keys, key), append(n.vals, v)
	}
	if p.ok && p.deeper(indent) {
		p.ok = false
	}
	return n
}

// block reads a folded (>) or literal (|) scalar whose header is on line
// l, and moves p.i past its lines.
func (p *yparser) block(l yline, header string, indent int) ynode {
	folded := header[0] == '>'
	strip := false
	switch h := strings.TrimRight(header[1:], " "); h {
	case "":
	case "-":
		strip = true
	default:
		p.ok = false // keep (+), an explicit indent, or a comment
		return ynode{}
	}
	// The lines after the header, while blank or indented past the key;
	// end is where they end, and nl says whether a line break ends the
	// last one that is not blank.
	var body []string
	off := strings.IndexByte(p.text[l.start:], '\n')
	if off < 0 {
		p.ok = false
		return ynode{}
	}
	off += l.start + 1
	end, nl := off, false
	for off < len(p.text) {
		r, next, brk := p.text[off:], len(p.text), false
		if i := strings.IndexByte(r, '\n'); i >= 0 {
			r, next, brk = r[:i], off+i+1, true
		}
		t := strings.TrimLeft(r, " ")
		if t != "" && len(r)-len(t) <= indent {
			break
		}
		body = append(body, r)
		if t != "" {
			nl = brk
		}
		off = next
	}
	end = off
	if len(body) == 0 || strings.TrimLeft(body[0], " ") == "" {
		p.ok = false // empty, or starting with a blank line
		return ynode{}
	}
	bi := len(body[0]) - len(strings.TrimLeft(body[0], " "))
	for _, r := range body {
		if len(r) > bi && strings.TrimLeft(r, " ") == "" {
			p.ok = false // spaces that are content
			return ynode{}
		}
	}
	for strings.TrimLeft(body[len(body)-1], " ") == "" {
		body = body[:len(body)-1]
	}
	var b strings.Builder
	blanks := 0
	for j, r := range body {
		t := strings.TrimLeft(r, " ")
		if t == "" {
			blanks++
			continue
		}
		if len(r)-len(t) != bi {
			p.ok = false // more indented: its breaks are kept, not folded
			return ynode{}
		}
		if j > 0 {
			switch {
			case !folded:
				b.WriteString(strings.Repeat("\n", blanks+1))
			case blanks == 0:
				b.WriteByte(' ')
			default:
				b.WriteString(strings.Repeat("\n", blanks))
			}
		}
		blanks = 0
		b.WriteString(t)
	}
	if !strip && nl {
		b.WriteByte('\n') // clipped to one line break, when the file has one
	}
	// Skip the lexed lines the block spans.
	for p.i < len(p.lines) && p.lines[p.i].start < end {
		p.i++
	}
	return ynode{kind: 's', s: b.String()}
}

// cutKey splits "key: rest" or "key:" at a simple key.
func cutKey(t string) (key, rest string, ok bool) {
	i := 0
	for i < len(t) && (t[i] == '_' || t[i] >= 'a' && t[i] <= 'z' || t[i] >= 'A' && t[i] <= 'Z' || i > 0 && t[i] >= '0' && t[i] <= '9') {
		i++
	}
	if i == 0 || i >= len(t) || t[i] != ':' {
		return "", "", false
	}
	if i+1 == len(t) {
		return t[:i], "", true
	}
	if t[i+1] != ' ' {
		return "", "", false
	}
	return t[:i], strings.TrimLeft(t[i+2:], " "), true
}

// inlineValue parses a value written on one line: a plain or quoted
// scalar, a flow list or a flow map, with nothing after it but a comment.
func (p *yparser) inlineValue(t string) (ynode, bool) {
	var v ynode
	var rest string
	var ok bool
	switch t[0] {
	case '[':
		v, rest, ok = p.flowList(t)
	case '{':
		v, rest, ok = p.flowMap(t)
	default:
		v, rest, ok = scalar(t, false)
	}
	if !ok {
		return ynode{}, false
	}
	// Nothing but a comment may follow, after a space.
	if r := strings.TrimLeft(rest, " "); r != "" && (r[0] != '#' || len(r) == len(rest)) {
		return ynode{}, false
	}
	return v, true
}

// scalar parses the scalar at the start of t; inFlow says it is inside a
// flow list or map. It returns what follows it.
func scalar(t string, inFlow bool) (ynode, string, bool) {
	switch t[0] {
	case '\'':
		return singleQuoted(t)
	case '"':
		return doubleQuoted(t)
	}
	if strings.IndexByte("-?:,[]{}#&*!|>'\"%@`", t[0]) >= 0 {
		// "-" starts a plain scalar when text follows (--tp-size).
		if t[0] != '-' || len(t) < 2 || strings.IndexByte(" ,[]{}#", t[1]) >= 0 {
			return ynode{}, "", false
		}
	}
	end := len(t)
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == ' ' && i+1 < len(t) && t[i+1] == '#' {
			end = i // a comment
			break
		}
		if c == ':' && (i+1 == len(t) || t[i+1] == ' ' || inFlow && strings.IndexByte(",[]{}", t[i+1]) >= 0) {
			return ynode{}, "", false // a key: a map, not a scalar
		}
		if inFlow && strings.IndexByte(",[]{}", c) >= 0 {
			end = i
			break
		}
		if inFlow && !flowSafe(c) {
			return ynode{}, "", false
		}
	}
	s := strings.TrimRight(t[:end], " ")
	if isNull(s) {
		return ynode{}, "", false
	}
	return ynode{kind: 's', plain: true, s: s}, t[end:], true
}

// flowSafe reports whether c is one of the bytes the fast path takes in a
// plain scalar inside a flow list or map: names, paths and flags.
func flowSafe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf ||
		strings.IndexByte(" ._-/+:()<>=", c) >= 0
}

// isNull reports whether a plain scalar is YAML's null.
func isNull(s string) bool {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

func singleQuoted(t string) (ynode, string, bool) {
	var b strings.Builder
	for i := 1; i < len(t); i++ {
		if t[i] != '\'' {
			continue
		}
		if i+1 < len(t) && t[i+1] == '\'' {
			b.WriteString(t[1 : i+1])
			t = t[i+1:]
			i = 0
			continue
		}
		if b.Len() == 0 {
			return ynode{kind: 's', s: t[1:i]}, t[i+1:], true
		}
		b.WriteString(t[1:i])
		return ynode{kind: 's', s: b.String()}, t[i+1:], true
	}
	return ynode{}, "", false // closed on another line
}

func doubleQuoted(t string) (ynode, string, bool) {
	i := 1
	for i < len(t) && t[i] != '"' && t[i] != '\\' {
		i++
	}
	if i < len(t) && t[i] == '"' {
		return ynode{kind: 's', s: t[1:i]}, t[i+1:], true
	}
	var b strings.Builder
	b.WriteString(t[1:i])
	for i < len(t) {
		c := t[i]
		switch {
		case c == '"':
			return ynode{kind: 's', s: b.String()}, t[i+1:], true
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(t) {
			return ynode{}, "", false // an escaped line break
		}
		e := t[i+1]
		i += 2
		if r, ok := simpleEscapes[e]; ok {
			b.WriteString(r)
			continue
		}
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
		if n == 0 || i+n > len(t) {
			return ynode{}, "", false
		}
		v, err := strconv.ParseUint(t[i:i+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return ynode{}, "", false
		}
		b.WriteRune(rune(v))
		i += n
	}
	return ynode{}, "", false
}

// simpleEscapes are the one-letter escapes of a double-quoted scalar.
var simpleEscapes = map[byte]string{
	'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", 'n': "\n", 'v': "\v", 'f': "\f", 'r': "\r", 'e': "\x1b",
	' ': " ", '"': "\"", '\'': "'", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029",
}

// flowList parses "[a, 'b', c]".
func (p *yparser) flowList(t string) (ynode, string, bool) {
	at, list := p.children()
	n := ynode{kind: 'l', list: list}
	defer func() { p.nodes[at] = n.list }()
	t = strings.TrimLeft(t[1:], " ")
	if strings.HasPrefix(t, "]") {
		return n, t[1:], true
	}
	for {
		if t == "" {
			return ynode{}, "", false
		}
		v, rest, ok := scalar(t, true)
		if !ok {
			return ynode{}, "", false
		}
		n.list = append(n.list, v)
		rest = strings.TrimLeft(rest, " ")
		switch {
		case strings.HasPrefix(rest, "]"):
			return n, rest[1:], true
		case strings.HasPrefix(rest, ", "):
			t = strings.TrimLeft(rest[2:], " ")
			if t == "" || t[0] == ']' {
				return ynode{}, "", false
			}
		default:
			return ynode{}, "", false
		}
	}
}

// flowMap parses "{repo: a, file: 'b', line: 3}" and "{match: [a, b]}".
func (p *yparser) flowMap(t string) (ynode, string, bool) {
	ka, keys := p.keyList()
	va, vals := p.children()
	n := ynode{kind: 'm', keys: keys, vals: vals}
	defer func() { p.keys[ka], p.nodes[va] = n.keys, n.vals }()
	t = strings.TrimLeft(t[1:], " ")
	for {
		key, rest, ok := cutKey(t)
		if !ok || rest == "" {
			return ynode{}, "", false
		}
		for _, k := range n.keys {
			if k == key {
				return ynode{}, "", false
			}
		}
		// A value is a scalar or a flow list of them: {match: [a, b]}.
		var v ynode
		if strings.HasPrefix(rest, "[") {
			v, rest, ok = p.flowList(rest)
		} else {
			v, rest, ok = scalar(rest, true)
		}
		if !ok {
			return ynode{}, "", false
		}
		n.keys, n.vals = append(n.keys, key), append(n.vals, v)
		rest = strings.TrimLeft(rest, " ")
		switch {
		case strings.HasPrefix(rest, "}"):
			return n, rest[1:], true
		case strings.HasPrefix(rest, ", "):
			t = strings.TrimLeft(rest[2:], " ")
		default:
			return ynode{}, "", false
		}
	}
}

// decodeRecord sets r from a record's map; false when a key is not one of
// Record's, or a value is not of its field's kind.
func decodeRecord(n *ynode, r *Record) bool {
	if n.kind != 'm' {
		return false
	}
	for k, key := range n.keys {
		v := &n.vals[k]
		ok := true
		switch key {
		case "id":
			ok = ystr(v, &r.ID)
		case "title":
			ok = ystr(v, &r.Title)
		case "severity":
			ok = v.kind == 's' && r.Severity.UnmarshalText([]byte(v.s)) == nil
		case "role":
			ok = v.kind == 's' && r.Role.UnmarshalText([]byte(v.s)) == nil
		case "match":
			ok = fields(v, map[string]*string{"exception": &r.Match.Exception, "message": &r.Match.Message,
				"regex": &r.Match.Regex, "frame": &r.Match.Frame, "next": &r.Match.Next}, nil, nil)
		case "where":
			r.Where = new(Site)
			ok = fields(v, map[string]*string{"repo": &r.Where.Repo, "file": &r.Where.File, "function": &r.Where.Function},
				map[string]*int{"line": &r.Where.Line}, nil)
		case "cause":
			ok = ystr(v, &r.Cause)
		case "fix":
			ok = decodeFix(v, &r.Fix)
		case "related":
			ok = ystrs(v, &r.Related)
		case "follows":
			ok = ystrs(v, &r.Follows)
		case "tags":
			ok = ystrs(v, &r.Tags)
		case "tests":
			ok = fields(v, nil, nil, map[string]*[]string{"match": &r.Tests.Match, "no_match": &r.Tests.NoMatch})
		case "generated":
			g := new(Generated)
			r.Gen = g
			ok = fields(v, map[string]*string{"kind": &g.Kind, "template": &g.Template, "qualname": &g.Qualname,
				"guard": &g.Guard, "commit": &g.Commit, "source": &g.Source, "first_release": &g.FirstRelease,
				"last_release": &g.LastRelease, "removed_in": &g.RemovedIn, "removed_by": &g.RemovedBy},
				map[string]*int{"sites": &g.Sites}, map[string]*[]string{"flags": &g.Flags})
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

func decodeFix(n *ynode, f *Fix) bool {
	if n.kind != 'm' {
		return false
	}
	for k, key := range n.keys {
		v := &n.vals[k]
		ok := true
		switch key {
		case "steps":
			ok = ystrs(v, &f.Steps)
		case "before":
			ok = ystr(v, &f.Before)
		case "after":
			ok = ystr(v, &f.After)
		case "otherwise":
			f.Otherwise = new(Change)
			ok = fields(v, map[string]*string{"before": &f.Otherwise.Before, "after": &f.Otherwise.After}, nil, nil)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

// fields sets a struct's string, int and string-list fields from a map,
// by key; false for any other key or kind.
func fields(n *ynode, ss map[string]*string, is map[string]*int, ls map[string]*[]string) bool {
	if n.kind != 'm' {
		return false
	}
	for k, key := range n.keys {
		v := &n.vals[k]
		if p := ss[key]; p != nil {
			if !ystr(v, p) {
				return false
			}
		} else if p := is[key]; p != nil {
			if !yint(v, p) {
				return false
			}
		} else if p := ls[key]; p != nil {
			if !ystrs(v, p) {
				return false
			}
		} else {
			return false
		}
	}
	return true
}

func ystr(n *ynode, p *string) bool {
	if n.kind != 's' {
		return false
	}
	*p = n.s
	return true
}

// yint reads a plain decimal integer.
func yint(n *ynode, p *int) bool {
	if n.kind != 's' || !n.plain || n.s == "" || len(n.s) > 9 || strings.Trim(n.s, "0123456789") != "" || n.s[0] == '0' && n.s != "0" {
		return false
	}
	v, err := strconv.Atoi(n.s)
	*p = v
	return err == nil
}

func ystrs(n *ynode, p *[]string) bool {
	if n.kind != 'l' {
		return false
	}
	out := make([]string, len(n.list))
	for i := range n.list {
		if !ystr(&n.list[i], &out[i]) {
			return false
		}
	}
	*p = out
	return true
}
