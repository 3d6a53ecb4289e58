package patterns

// Learning records from Python source: LearnSites reads a source tree (such
// as an installed sglang package) and finds every raise, assert and logging
// call with its message template; Learned turns those sites into records, so
// that the messages of a new release are known without writing them by hand.
//
// The Python is read by a small tokenizer written here, not by Python: it
// knows comments and bracket nesting, and leaves string literals (quotes,
// prefixes, escapes, f-string replacement fields) to package pystr, which
// is all that is needed to find statements and their first argument.

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/tailfix/tailfix/pystr"

	"github.com/tailfix/tailfix/internal/regular"
)

// RaiseSite is one raise, assert or logging call found in Python source.
type RaiseSite struct {
	// File is the slash-separated path of the source file inside the tree.
	File string `json:"file"`
	// Line is the first line of the statement (raise, assert) or call
	// (logger); EndLine is its last line.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Function is the qualified name of the innermost enclosing def, with
	// the classes and functions around it joined by dots
	// ("Scheduler.run.step"), or "<module>" outside any def or class.
	Function string `json:"function"`
	// Kind is raise, assert, logger.error, logger.exception,
	// logger.warning or logger.critical.
	Kind string `json:"kind"`
	// Class is the exception class as written (dotted names kept),
	// AssertionError for an assert, empty for a logging call.
	Class string `json:"class,omitempty"`
	// Message is the message template: literal text, with each run-time
	// part as written ({expr} of an f-string or concatenation, %s of
	// %-formatting, {} of str.format). Empty when the first argument is
	// not a string (raise ValueError(msg), an assert without a message).
	Message string `json:"message,omitempty"`
	// Form is how the message is built: literal, fstring, percent, format
	// or concat; empty without a message.
	Form string `json:"message_form,omitempty"`
	// Regex is an unanchored regular expression for the message: literal
	// text escaped, every run-time part ".*?". It uses only syntax that Go
	// and Python's re both accept: regexp.QuoteMeta escapes, \n, \t, \r
	// and \xHH for control characters.
	Regex string `json:"message_regex,omitempty"`
	// Guard is the condition of the innermost if, elif or else block the
	// site is in, as written ("not (…)" for an else); Condition is an
	// assert's own condition.
	Guard     string `json:"guard,omitempty"`
	Condition string `json:"condition,omitempty"`
}

// LearnStats counts what was found and what was left out, by reason.
type LearnStats struct {
	// Files is the number of Python files read, Sites the number of sites
	// found in them.
	Files, Sites int
	// Unreadable holds an error, naming the file and line, for each file
	// the reader could not read; its sites are not learnt.
	Unreadable []error
	// Skipped counts the sites that did not become records of their own,
	// by reason (see Learned).
	Skipped map[string]int
}

// SkipNoMessage is the reason a site makes no record when its message is
// not a string in the source (raise ValueError(msg), a bare assert).
const SkipNoMessage = "no message in the source (a variable, or none)"

// learnPlaceholder is what every run-time part of a message becomes.
const learnPlaceholder = ".*?"

// learnSkipDirs are directories of test code, which LearnSites does not read.
var learnSkipDirs = map[string]bool{"test": true, "tests": true, "testing": true, "unittest": true, "unit_tests": true, "__pycache__": true}

// maxSourceBytes bounds one Python file learn reads: sglang's largest
// are a few hundred kilobytes.
const maxSourceBytes = 16 << 20

// LearnSites walks fsys and returns the raise, assert and logging sites of
// every .py file in it, in file order and then line order. Test code is left
// out: directories named test, tests, testing, unittest or unit_tests, hidden
// directories, and files named test_*.py, *_test.py or conftest.py. A bare
// re-raise (raise with no expression) is not a site. A file the reader
// cannot read is left out and noted in the stats; an error reading the
// tree stops the walk.
func LearnSites(fsys fs.FS) ([]RaiseSite, LearnStats, error) {
	stats := LearnStats{Skipped: map[string]int{}}
	var sites []RaiseSite
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := d.Name()
		if d.IsDir() {
			if name != "." && skipDir(base) {
				return fs.SkipDir
			}
			return nil
		}
		if !learnsBase(base) || !d.Type().IsRegular() {
			return nil
		}
		data, err := regular.ReadFS(fsys, name, maxSourceBytes)
		if err != nil {
			// One file that cannot be read does not stop the rest.
			stats.Unreadable = append(stats.Unreadable, err)
			return nil
		}
		found, err := ParsePython(name, data)
		if err != nil {
			// One file the reader cannot read does not stop the rest.
			stats.Unreadable = append(stats.Unreadable, err)
			return nil
		}
		stats.Files++
		stats.Sites += len(found)
		sites = append(sites, found...)
		return nil
	})
	if err != nil {
		return nil, stats, err
	}
	return sites, stats, nil
}

// LearnsFile reports whether LearnSites reads the file at a slash-separated
// path inside a tree: a .py file outside test code.
func LearnsFile(name string) bool {
	dirs := strings.Split(name, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if skipDir(d) {
			return false
		}
	}
	return learnsBase(dirs[len(dirs)-1])
}

func skipDir(base string) bool { return learnSkipDirs[base] || strings.HasPrefix(base, ".") }

func learnsBase(base string) bool {
	return strings.HasSuffix(base, ".py") && !strings.HasPrefix(base, "test_") &&
		!strings.HasSuffix(base, "_test.py") && base != "conftest.py"
}

// ParsePython returns the raise, assert and logging sites of one Python
// file. name is the file's path in the sites and in errors.
func ParsePython(name string, src []byte) ([]RaiseSite, error) {
	s := strings.TrimPrefix(string(src), "\uFEFF")
	toks, err := pyTokenize(s)
	if err != nil {
		var le *pyLineError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%s:%d: %s", name, le.line, le.msg)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &pyParser{file: name, src: s, toks: toks}
	p.parse()
	return p.sites, nil
}

// ---- tokenizer ----

type pyTokKind uint8

const (
	pyName pyTokKind = iota + 1
	pyNumber
	pyString
	pyOp
	pyNewline // end of a logical line
)

type pyToken struct {
	kind          pyTokKind
	text          string // source text; for a string, the whole literal
	line, endLine int
	start, end    int        // byte offsets in the source
	indent        int        // indentation of the logical line it starts, or -1
	parts         []tmplPart // a string's value
	fstr          bool       // an f-string (or t-string)
}

func (t *pyToken) is(kind pyTokKind, text string) bool { return t.kind == kind && t.text == text }

// tmplPart is a piece of a message: literal text, or a part filled in at run
// time, kept as written (src).
type tmplPart struct {
	lit string
	ph  bool
	src string
}

// tmplBuilder collects message parts, joining adjacent literal text.
type tmplBuilder struct {
	parts []tmplPart
	lit   strings.Builder
}

func (b *tmplBuilder) flush() {
	if b.lit.Len() > 0 {
		b.parts = append(b.parts, tmplPart{lit: b.lit.String()})
		b.lit.Reset()
	}
}

func (b *tmplBuilder) ph(src string) {
	b.flush()
	b.parts = append(b.parts, tmplPart{ph: true, src: src})
}

func (b *tmplBuilder) add(parts []tmplPart) {
	for _, p := range parts {
		if p.ph {
			b.ph(p.src)
		} else {
			b.lit.WriteString(p.lit)
		}
	}
}

func (b *tmplBuilder) done() []tmplPart {
	b.flush()
	return b.parts
}

// pyLineError is a tokenizer error at a line.
type pyLineError struct {
	line int
	msg  string
}

func (e *pyLineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

type pyLexer struct {
	src       string
	pos       int
	line      int
	lineStart int // offset of the current physical line
	depth     int // bracket nesting
	logical   bool
	toks      []pyToken
}

// operators, longest first within each length.
var pyOps3 = []string{"**=", "//=", ">>=", "<<=", "..."}
var pyOps2 = []string{"**", "//", "==", "!=", "<=", ">=", "->", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "@="}

func pyTokenize(src string) ([]pyToken, error) {
	lx := &pyLexer{src: src, line: 1, logical: true}
	n := len(src)
	for lx.pos < n {
		c := src[lx.pos]
		switch {
		case c == '\n':
			lx.pos++
			lx.line++
			lx.lineStart = lx.pos
			if lx.depth == 0 {
				lx.endLogical()
			}
		case c == ' ' || c == '\t' || c == '\f' || c == '\r':
			lx.pos++
		case c == '#':
			for lx.pos < n && src[lx.pos] != '\n' {
				lx.pos++
			}
		case c == '\\':
			// A line continuation: the logical line goes on.
			lx.pos++
			if lx.pos < n && src[lx.pos] == '\r' {
				lx.pos++
			}
			if lx.pos < n && src[lx.pos] == '\n' {
				lx.pos++
				lx.line++
				lx.lineStart = lx.pos
			}
		case c == '"' || c == '\'':
			if err := lx.str(lx.pos); err != nil {
				return nil, err
			}
		case pyIdentStart(c):
			start := lx.pos
			for lx.pos < n && pyIdentPart(src[lx.pos]) {
				lx.pos++
			}
			word := src[start:lx.pos]
			if _, prefix := pystr.ParsePrefix(word); prefix && lx.pos < n && (src[lx.pos] == '"' || src[lx.pos] == '\'') {
				if err := lx.str(start); err != nil {
					return nil, err
				}
				continue
			}
			lx.emit(pyToken{kind: pyName, text: word, start: start, end: lx.pos})
		case pyIsDigit(c) || (c == '.' && lx.pos+1 < n && pyIsDigit(src[lx.pos+1])):
			start := lx.pos
			hex := strings.HasPrefix(src[start:], "0x") || strings.HasPrefix(src[start:], "0X")
			for lx.pos < n {
				d := src[lx.pos]
				if pyIdentPart(d) || d == '.' {
					lx.pos++
					continue
				}
				if (d == '+' || d == '-') && !hex && (src[lx.pos-1] == 'e' || src[lx.pos-1] == 'E') {
					lx.pos++
					continue
				}
				break
			}
			lx.emit(pyToken{kind: pyNumber, text: src[start:lx.pos], start: start, end: lx.pos})
		default:
			start := lx.pos
			op := src[start : start+1]
			for _, set := range [][]string{pyOps3, pyOps2} {
				for _, o := range set {
					if strings.HasPrefix(src[start:], o) {
						op = o
						break
					}
				}
				if len(op) > 1 {
					break
				}
			}
			lx.pos += len(op)
			switch op {
			case "(", "[", "{":
				lx.depth++
			case ")", "]", "}":
				if lx.depth > 0 {
					lx.depth--
				}
			}
			lx.emit(pyToken{kind: pyOp, text: op, start: start, end: lx.pos})
		}
	}
	lx.endLogical()
	return lx.toks, nil
}

func (lx *pyLexer) emit(t pyToken) {
	t.line, t.endLine = lx.line, lx.line
	t.indent = -1
	if lx.logical {
		t.indent = pyIndentWidth(lx.src[lx.lineStart:t.start])
		lx.logical = false
	}
	lx.toks = append(lx.toks, t)
}

func (lx *pyLexer) endLogical() {
	if k := len(lx.toks); k > 0 && lx.toks[k-1].kind != pyNewline {
		lx.toks = append(lx.toks, pyToken{kind: pyNewline, line: lx.line, endLine: lx.line, start: lx.pos, end: lx.pos, indent: -1})
	}
	lx.logical = true
}

// str reads a string literal whose prefix starts at start and whose opening
// quote is at lx.pos.
func (lx *pyLexer) str(start int) error {
	lit, err := pystr.Read(lx.src, start)
	if err != nil {
		msg, at := err.Error(), start
		var se *pystr.SyntaxError
		if errors.As(err, &se) {
			msg, at = se.Err.Error(), min(len(lx.src), se.Offset)
		}
		return &pyLineError{lx.line + strings.Count(lx.src[start:max(start, at)], "\n"), msg}
	}
	end := lit.End
	t := pyToken{kind: pyString, text: lx.src[start:end], start: start, end: end, parts: literalParts(lit), fstr: lit.Prefix.Fields()}
	lx.emit(t)
	if nl := strings.Count(lx.src[start:end], "\n"); nl > 0 {
		lx.line += nl
		lx.lineStart = start + strings.LastIndexByte(lx.src[start:end], '\n') + 1
		lx.toks[len(lx.toks)-1].endLine = lx.line
	}
	lx.pos = end
	return nil
}

// literalParts is a string literal's value as message parts: its text,
// and each field (an f-string's {…}) as a run-time part.
func literalParts(lit pystr.Literal) []tmplPart {
	if lit.Parts == nil {
		if lit.Value == "" {
			return nil
		}
		return []tmplPart{{lit: lit.Value}}
	}
	parts := make([]tmplPart, len(lit.Parts))
	for i, p := range lit.Parts {
		if p.Field != "" {
			parts[i] = tmplPart{ph: true, src: p.Field}
		} else {
			parts[i] = tmplPart{lit: p.Text}
		}
	}
	return parts
}

func pyIndentWidth(ws string) int {
	w := 0
	for i := 0; i < len(ws); i++ {
		switch ws[i] {
		case '\t':
			w = (w/8 + 1) * 8
		case '\f':
			w = 0
		default:
			w++
		}
	}
	return w
}

func pyIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func pyIdentPart(c byte) bool { return pyIdentStart(c) || pyIsDigit(c) }

func pyIsDigit(c byte) bool { return c >= '0' && c <= '9' }

func pyCollapseSpace(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// ---- statements ----

type pyScope struct {
	indent int
	name   string
}

type pyParser struct {
	file   string
	src    string
	toks   []pyToken
	sites  []RaiseSite
	stack  []pyScope
	guards []pyScope      // the if, elif and else blocks a line is in: indent and condition
	lastIf map[int]string // the condition of the last if or elif at an indentation
}

// pyLoggerReceivers are the names a logging call is made on (the last
// component of a dotted receiver such as self.logger).
var pyLoggerReceivers = map[string]bool{"logger": true, "_logger": true, "LOGGER": true, "_LOGGER": true,
	"log": true, "_log": true, "LOG": true, "logging": true}

// pyLoggerMethods maps a logging method to the site kind.
var pyLoggerMethods = map[string]string{
	"error": "logger.error", "exception": "logger.exception",
	"warning": "logger.warning", "warning_once": "logger.warning", "warn": "logger.warning", "warn_once": "logger.warning",
	"critical": "logger.critical", "fatal": "logger.critical",
}

func (p *pyParser) parse() {
	for i := 0; i < len(p.toks); {
		j := i
		for j < len(p.toks) && p.toks[j].kind != pyNewline {
			j++
		}
		if j > i {
			p.logicalLine(p.toks[i:j])
		}
		i = j + 1
	}
}

func (p *pyParser) logicalLine(line []pyToken) {
	if ind := line[0].indent; ind >= 0 {
		for len(p.stack) > 0 && p.stack[len(p.stack)-1].indent >= ind {
			p.stack = p.stack[:len(p.stack)-1]
		}
		for len(p.guards) > 0 && p.guards[len(p.guards)-1].indent >= ind {
			p.guards = p.guards[:len(p.guards)-1]
		}
		p.enterBlock(line, ind)
		k := 0
		if line[0].is(pyName, "async") {
			k = 1
		}
		if k+1 < len(line) && (line[k].is(pyName, "def") || line[k].is(pyName, "class")) && line[k+1].kind == pyName {
			p.stack = append(p.stack, pyScope{ind, line[k+1].text})
		}
	}
	for k := range line {
		t := &line[k]
		if t.kind != pyName {
			continue
		}
		switch {
		case t.text == "raise" && (k == 0 || !line[k-1].is(pyOp, ".")):
			p.raise(line[k:pyStatementEnd(line, k+1)])
		case t.text == "assert" && (k == 0 || !line[k-1].is(pyOp, ".")):
			p.assert(line[k:pyStatementEnd(line, k+1)])
		case pyLoggerReceivers[t.text] && k+3 < len(line) && line[k+1].is(pyOp, ".") &&
			line[k+2].kind == pyName && pyLoggerMethods[line[k+2].text] != "" && line[k+3].is(pyOp, "("):
			first := k
			for first >= 2 && line[first-1].is(pyOp, ".") && line[first-2].kind == pyName {
				first -= 2
			}
			p.logCall(line, first, k+3, pyLoggerMethods[line[k+2].text])
		}
	}
}

// enterBlock notes an if, elif or else header: the statements in its block,
// or after its colon on the same line, are raised under its condition.
func (p *pyParser) enterBlock(line []pyToken, ind int) {
	head := line[0]
	if head.kind != pyName || head.text != "if" && head.text != "elif" && head.text != "else" {
		return
	}
	colon := -1
	depth := 0
	for k := 1; k < len(line); k++ {
		t := &line[k]
		if t.kind != pyOp {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ":":
			if depth == 0 {
				colon = k
			}
		}
		if colon >= 0 {
			break
		}
	}
	if colon < 0 {
		return
	}
	if p.lastIf == nil {
		p.lastIf = map[int]string{}
	}
	var cond string
	switch head.text {
	case "else":
		prev, ok := p.lastIf[ind]
		if !ok || colon != 1 {
			return
		}
		cond = "not (" + prev + ")"
	default:
		if colon < 2 {
			return
		}
		cond = p.source(line[1:colon])
		p.lastIf[ind] = cond
	}
	p.guards = append(p.guards, pyScope{ind, cond})
}

// guard is the condition of the innermost if, elif or else block.
func (p *pyParser) guard() string {
	if len(p.guards) == 0 {
		return ""
	}
	return p.guards[len(p.guards)-1].name
}

// function is the qualified name of the current scope.
func (p *pyParser) function() string {
	if len(p.stack) == 0 {
		return "<module>"
	}
	names := make([]string, len(p.stack))
	for i, s := range p.stack {
		names[i] = s.name
	}
	return strings.Join(names, ".")
}

// pyStatementEnd returns the index of the ";" ending the statement that
// starts at from, or len(line).
func pyStatementEnd(line []pyToken, from int) int {
	depth := 0
	for k := from; k < len(line); k++ {
		t := &line[k]
		if t.kind != pyOp {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ";":
			if depth <= 0 {
				return k
			}
		}
	}
	return len(line)
}

// pyClosing returns the index of the bracket closing the one at toks[open],
// or len(toks).
func pyClosing(toks []pyToken, open int) int {
	depth := 0
	for k := open; k < len(toks); k++ {
		if toks[k].kind != pyOp {
			continue
		}
		switch toks[k].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return len(toks)
}

// pySplitTop splits toks at the operator sep outside brackets.
func pySplitTop(toks []pyToken, sep string) [][]pyToken {
	var out [][]pyToken
	depth, last := 0, 0
	for k := range toks {
		t := &toks[k]
		if t.kind != pyOp {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case sep:
			if depth != 0 {
				continue
			}
			// A + or - after an operator (or first) is unary.
			if (sep == "+" || sep == "-") && (k == 0 || (toks[k-1].kind == pyOp && !strings.Contains(")]}", toks[k-1].text))) {
				continue
			}
			out = append(out, toks[last:k])
			last = k + 1
		}
	}
	return append(out, toks[last:])
}

// pyCallArgs splits the arguments of a call whose parentheses enclose toks.
// positional counts the arguments after the first that are not keyword
// arguments.
func pyCallArgs(toks []pyToken) (first []pyToken, positional int) {
	list := pySplitTop(toks, ",")
	if n := len(list); n > 0 && len(list[n-1]) == 0 {
		list = list[:n-1] // trailing comma
	}
	if len(list) == 0 {
		return nil, 0
	}
	isKeyword := func(a []pyToken) bool {
		return len(a) >= 2 && a[0].kind == pyName && a[1].is(pyOp, "=") || len(a) > 0 && a[0].is(pyOp, "**")
	}
	for _, a := range list[1:] {
		if len(a) > 0 && !isKeyword(a) {
			positional++
		}
	}
	if isKeyword(list[0]) || len(list[0]) > 0 && list[0][0].is(pyOp, "*") {
		return nil, positional
	}
	return list[0], positional
}

// pyKeywordArg returns the value of the first of the keyword arguments
// named that a call's arguments hold, or nil.
func pyKeywordArg(toks []pyToken, names ...string) []pyToken {
	for _, name := range names {
		for _, a := range pySplitTop(toks, ",") {
			if len(a) > 2 && a[0].is(pyName, name) && a[1].is(pyOp, "=") {
				return a[2:]
			}
		}
	}
	return nil
}

func (p *pyParser) add(s RaiseSite, first, last *pyToken, msg []pyToken, lazy bool) {
	s.File = p.file
	s.Line = first.line
	s.EndLine = last.endLine
	s.Function = p.function()
	s.Guard = p.guard()
	if len(msg) > 0 {
		if m, ok := p.message(msg, lazy); ok {
			s.Message = renderTemplate(m.shown)
			s.Form = m.form
			s.Regex = templateRegex(m.parts)
		}
	}
	p.sites = append(p.sites, s)
}

func (p *pyParser) raise(stmt []pyToken) {
	last := &stmt[len(stmt)-1]
	expr := stmt[1:]
	if len(expr) == 0 {
		return // a bare re-raise
	}
	for k := range expr {
		if expr[k].is(pyName, "from") && pyDepthAt(expr, k) == 0 {
			expr = expr[:k]
			break
		}
	}
	if len(expr) == 0 {
		return
	}
	for expr[0].is(pyOp, "(") && pyClosing(expr, 0) == len(expr)-1 && len(expr) > 2 {
		expr = expr[1 : len(expr)-1] // raise (X("…"))
	}
	// The exception is the first call of a primary chain: X(…),
	// errors.X(…), table[0](…), X(…).with_traceback(tb).
	s := RaiseSite{Kind: "raise", Class: p.source(expr)}
	if expr[0].kind == pyName {
		for k := 1; k <= len(expr); {
			switch {
			case k == len(expr):
				k++
			case k+1 < len(expr) && expr[k].is(pyOp, ".") && expr[k+1].kind == pyName:
				k += 2
				continue
			case expr[k].is(pyOp, "["):
				k = pyClosing(expr, k) + 1
				continue
			case expr[k].is(pyOp, "("):
				s.Class = p.source(expr[:k])
				args := expr[k+1 : pyClosing(expr, k)]
				first, _ := pyCallArgs(args)
				if first == nil {
					// HTTPException(status_code=400, detail="…"): the
					// message is a keyword argument.
					first = pyKeywordArg(args, "detail", "message", "msg")
				}
				p.add(s, &stmt[0], last, first, false)
				return
			}
			break
		}
	}
	p.add(s, &stmt[0], last, nil, false)
}

// pyDepthAt is the bracket depth before toks[k].
func pyDepthAt(toks []pyToken, k int) int {
	depth := 0
	for i := 0; i < k; i++ {
		if toks[i].kind == pyOp {
			switch toks[i].text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
	}
	return depth
}

func (p *pyParser) assert(stmt []pyToken) {
	last := &stmt[len(stmt)-1]
	parts := pySplitTop(stmt[1:], ",")
	var msg []pyToken
	if len(parts) >= 2 {
		msg = parts[1]
	}
	p.add(RaiseSite{Kind: "assert", Class: "AssertionError", Condition: p.source(parts[0])}, &stmt[0], last, msg, false)
}

func (p *pyParser) logCall(line []pyToken, first, open int, kind string) {
	end := pyClosing(line, open)
	last := &line[min(end, len(line)-1)]
	msg, positional := pyCallArgs(line[open+1 : end])
	p.add(RaiseSite{Kind: kind}, &line[first], last, msg, positional > 0)
}

// source is the source text of toks, whitespace collapsed.
func (p *pyParser) source(toks []pyToken) string {
	if len(toks) == 0 {
		return ""
	}
	return pyCollapseSpace(p.src[toks[0].start:toks[len(toks)-1].end])
}

// pyMessage is a message read from the source: as written (shown, with
// %s, {} and %% kept) and as printed (parts, with formatting applied).
type pyMessage struct {
	shown, parts []tmplPart
	form         string
}

// message reads a message expression. lazy is set for a logging call with
// arguments, which %-formats its message. ok is false when the expression
// is not a string.
func (p *pyParser) message(toks []pyToken, lazy bool) (m pyMessage, ok bool) {
	terms := pySplitTop(toks, "+")
	if len(terms) == 1 {
		m, ok = p.term(toks)
	} else {
		var shown, parts tmplBuilder
		for _, t := range terms {
			if tm, isStr := p.term(t); isStr {
				ok = true
				shown.add(tm.shown)
				parts.add(tm.parts)
			} else {
				src := "{" + p.source(t) + "}"
				shown.ph(src)
				parts.ph(src)
			}
		}
		m = pyMessage{shown.done(), parts.done(), "concat"}
	}
	if !ok {
		return pyMessage{}, false
	}
	if lazy {
		m.parts, m.form = pyApplyPercent(m.parts), "percent"
	}
	return m, true
}

// term reads one operand of a + chain: string literals (adjacent ones
// joined), possibly %-formatted or .format()ted, or a parenthesised
// message.
func (p *pyParser) term(toks []pyToken) (pyMessage, bool) {
	if len(toks) == 0 {
		return pyMessage{}, false
	}
	var m pyMessage
	var rest []pyToken
	if toks[0].is(pyOp, "(") {
		// ("…" "…"), or ("…") % x
		end := pyClosing(toks, 0)
		inner := toks[1:min(end, len(toks))]
		if len(pySplitTop(inner, ",")) > 1 {
			return pyMessage{}, false // a tuple
		}
		var ok bool
		if m, ok = p.message(inner, false); !ok {
			return pyMessage{}, false
		}
		rest = toks[min(end+1, len(toks)):]
	} else {
		k := 0
		var b tmplBuilder
		isF := false
		for k < len(toks) && toks[k].kind == pyString {
			b.add(toks[k].parts)
			isF = isF || toks[k].fstr
			k++
		}
		if k == 0 {
			return pyMessage{}, false
		}
		parts := b.done()
		m = pyMessage{shown: parts, parts: parts, form: "literal"}
		if isF {
			m.form = "fstring"
		}
		rest = toks[k:]
	}
	switch {
	case len(rest) == 0:
		return m, true
	case rest[0].is(pyOp, "%"):
		m.parts, m.form = pyApplyPercent(m.parts), "percent"
		return m, true
	case len(rest) >= 3 && rest[0].is(pyOp, ".") && rest[1].is(pyName, "format") && rest[2].is(pyOp, "(") &&
		pyClosing(rest, 2) == len(rest)-1:
		m.parts, m.form = pyApplyFormat(m.parts), "format"
		return m, true
	}
	return pyMessage{}, false
}

// pyPercentRE is one %-format conversion.
var pyPercentRE = regexp.MustCompile(`^%(?:\([^)]*\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa]`)

// pyApplyPercent turns the %-conversions of literal parts into run-time parts
// and %% into %.
func pyApplyPercent(parts []tmplPart) []tmplPart {
	var b tmplBuilder
	for _, pt := range parts {
		if pt.ph {
			b.ph(pt.src)
			continue
		}
		s := pt.lit
		for s != "" {
			i := strings.IndexByte(s, '%')
			if i < 0 {
				b.lit.WriteString(s)
				break
			}
			b.lit.WriteString(s[:i])
			s = s[i:]
			if strings.HasPrefix(s, "%%") {
				b.lit.WriteByte('%')
				s = s[2:]
				continue
			}
			if m := pyPercentRE.FindString(s); m != "" {
				b.ph(m)
				s = s[len(m):]
				continue
			}
			b.lit.WriteByte('%')
			s = s[1:]
		}
	}
	return b.done()
}

// pyApplyFormat turns the {fields} of literal parts into run-time parts, and
// {{ and }} into braces, as str.format does.
func pyApplyFormat(parts []tmplPart) []tmplPart {
	var b tmplBuilder
	for _, pt := range parts {
		if pt.ph {
			b.ph(pt.src)
			continue
		}
		s := pt.lit
		for i := 0; i < len(s); {
			c := s[i]
			switch {
			case (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c:
				b.lit.WriteByte(c)
				i += 2
			case c == '{':
				depth, j := 0, i
				for ; j < len(s); j++ {
					if s[j] == '{' {
						depth++
					} else if s[j] == '}' {
						depth--
						if depth == 0 {
							break
						}
					}
				}
				if j >= len(s) {
					b.lit.WriteString(s[i:])
					i = len(s)
					continue
				}
				b.ph(s[i : j+1])
				i = j + 1
			default:
				b.lit.WriteByte(c)
				i++
			}
		}
	}
	return b.done()
}

func renderTemplate(parts []tmplPart) string {
	var b strings.Builder
	for _, pt := range parts {
		if pt.ph {
			b.WriteString(pt.src)
		} else {
			b.WriteString(pt.lit)
		}
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// templateRegex is the unanchored regex of a message: literal text escaped,
// each run of run-time parts ".*?".
func templateRegex(parts []tmplPart) string {
	var b strings.Builder
	prevPh := false
	for _, pt := range parts {
		if pt.ph {
			if !prevPh {
				b.WriteString(learnPlaceholder)
			}
			prevPh = true
			continue
		}
		if pt.lit == "" {
			continue
		}
		b.WriteString(quoteTemplateLiteral(strings.ToValidUTF8(pt.lit, "\uFFFD")))
		prevPh = false
	}
	return b.String()
}

// quoteTemplateLiteral escapes text for a regex that Go and Python both read the
// same: regexp.QuoteMeta's escapes, and \n, \t, \r or \xHH for control
// characters.
func quoteTemplateLiteral(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < utf8.RuneSelf && strings.ContainsRune(`\.+*?()|[]{}^$`, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ---- the table ----

// LearnTable learns a source tree into a table of generated records, made
// by the builder the built-in pack is made by (BuildTable) and read by
// ReadSites. When fsys is sglang's package directory (it holds
// srt/server_args.py), sites are named by their path in sglang's
// repository (python/sglang/…) and the flags messages name are read from
// its own flag table; otherwise flags, when given, stand for it. src names
// the repository and, when fsys is a directory of this machine, that
// directory (its Prefix is worked out here). Test code and files the
// reader cannot read are left out (see LearnSites); stats.Skipped counts
// the sites and messages that made no record of their own, by reason.
func LearnTable(fsys fs.FS, flags *FlagTable, src TableSource) (table []byte, stats LearnStats, records int, err error) {
	sites, stats, err := LearnSites(fsys)
	if err != nil {
		return nil, stats, 0, err
	}
	src.Prefix = ""
	if own, err := LearnFlagTable(fsys, ""); err == nil {
		src.Prefix, flags = "python/sglang/", own
	}
	msgs, noMessage := Messages(sites, src.Prefix)
	if noMessage > 0 {
		stats.Skipped[SkipNoMessage] += noMessage
	}
	table, bst := BuildTable(msgs, flags, src)
	for reason, n := range bst.Skipped {
		stats.Skipped[reason] += n
	}
	return table, stats, bst.Records, nil
}
