package matcher

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonLine reads a JSON-structured log line, one object per line:
// {"time": "…", "level": "ERROR", "message": "…"} as Python's JSON
// formatters write it, or docker's json-file {"log": "…\n", "time": "…"}.
// The message is what the engine assembles, and the lines it holds when a
// formatter escaped a whole traceback into it ("…\n  File \"x.py\"…") are
// lines of their own, under the object's line number.
type jsonLine struct {
	text   []byte // the message, unescaped, each line ending in '\n'
	time   []byte
	level  Level
	owners []int32
}

// The keys that name a record's message, time and level.
var (
	jsonMsgKeys   = [...]string{`"message"`, `"msg"`, `"log"`, `"textPayload"`}
	jsonTimeKeys  = [...]string{`"time"`, `"timestamp"`, `"@timestamp"`, `"asctime"`, `"ts"`}
	jsonLevelKeys = [...]string{`"level"`, `"severity"`, `"levelname"`}
)

// parse recognises a JSON object with a message and returns the message,
// still escaped; the time and level are kept.
func (j *jsonLine) parse(line []byte) ([]byte, bool) {
	t := bytes.TrimSpace(line)
	if len(t) > 0 && t[0] != '{' {
		return j.parseLogfmt(t)
	}
	if len(t) < len(`{"msg":""}`) || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, false
	}
	var msg []byte
	found := false
	for _, k := range jsonMsgKeys {
		if msg, found = jsonString(t, k); found {
			break
		}
	}
	if !found {
		return nil, false
	}
	j.time = j.time[:0]
	for _, k := range jsonTimeKeys {
		if v, ok := jsonString(t, k); ok {
			j.time = append(j.time, v...)
			break
		}
	}
	j.level = LevelNone
	for _, k := range jsonLevelKeys {
		if v, ok := jsonString(t, k); ok {
			j.level = levelNamed(v)
			break
		}
	}
	if j.level == LevelNone && errorBody(t) {
		j.level = LevelError
	}
	return msg, true
}

// errorBody reports whether a JSON object is an API's error response, as
// a server logs or a client prints it: OpenAI's {"object": "error",
// "message": …, "code": 500}, or {"error": {"message": …}}.
func errorBody(obj []byte) bool {
	if v, ok := jsonString(obj, `"object"`); ok && string(v) == "error" {
		return true
	}
	t := bytes.TrimLeft(obj[1:], " ")
	if !bytes.HasPrefix(t, []byte(`"error"`)) {
		return false
	}
	t = bytes.TrimLeft(t[len(`"error"`):], " ")
	if len(t) == 0 || t[0] != ':' {
		return false
	}
	t = bytes.TrimLeft(t[1:], " ")
	return len(t) > 0 && t[0] == '{'
}

// fill gives a line of the message the record's time and level, where the
// line states none of its own.
func (j *jsonLine) fill(l *Line) {
	if len(l.Header.Time) == 0 {
		l.Header.Time = j.time
	}
	if l.Level == LevelNone {
		l.Level = j.level
	}
}

// jsonString returns the raw, still escaped, string value of key in obj.
func jsonString(obj []byte, key string) ([]byte, bool) {
	off := 0
	for {
		i := bytes.Index(obj[off:], []byte(key))
		if i < 0 {
			return nil, false
		}
		i += off + len(key)
		off = i
		for i < len(obj) && obj[i] == ' ' {
			i++
		}
		if i >= len(obj) || obj[i] != ':' {
			continue
		}
		for i++; i < len(obj) && obj[i] == ' '; i++ {
		}
		if i >= len(obj) || obj[i] != '"' {
			continue
		}
		if end := closingQuote(obj[i:]); end >= 0 {
			return obj[i+1 : i+end], true
		}
		return nil, false
	}
}

// unescapeJSON appends the text of a JSON string's contents to dst.
func unescapeJSON(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b', 'f':
		case 'u':
			r, n := jsonRune(s[i+1:])
			if n == 0 {
				dst = append(dst, '\\', 'u')
				continue
			}
			i += n
			dst = utf8.AppendRune(dst, r)
		default:
			dst = append(dst, s[i])
		}
	}
	return dst
}

// jsonRune decodes the hex digits after "\u", with a surrogate pair's
// second half, and returns the rune and the bytes read.
func jsonRune(s []byte) (rune, int) {
	r, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) && len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if r2, ok := hex4(s[6:]); ok {
			return utf16.DecodeRune(r, r2), 10
		}
	}
	return r, 4
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// feedJSON assembles the lines of a JSON record's message, each under the
// record's line number.
func (e *Engine) feedJSON(msg []byte) {
	j := &e.json
	j.text = unescapeJSON(j.text[:0], msg)
	if n := len(j.text); n == 0 || j.text[n-1] != '\n' {
		j.text = append(j.text, '\n')
	}
	if len(j.text) > MaxLine {
		j.text = append(j.text[:MaxLine-1], '\n')
	}
	e.jcands, e.jscr = e.m.candidates(j.text, e.jcands[:0], e.jscr)
	e.inJSON = true
	defer func() { e.inJSON = false }()
	pos, ci, n := 0, 0, 0
	defer func() {
		if n > 1 {
			// A record that holds several lines is whole: its event
			// ends with it.
			e.CloseEvents()
		}
	}()
	for ; pos < len(j.text); n++ {
		end := pos + lineLen(j.text[pos:])
		j.owners = j.owners[:0]
		for ci < len(e.jcands) && e.jcands[ci].start < pos {
			ci++
		}
		for ci < len(e.jcands) && e.jcands[ci].start == pos {
			if o := e.jcands[ci].owner; !slices.Contains(j.owners, o) {
				j.owners = append(j.owners, o)
			}
			ci++
		}
		if lv := int32(markLevel); n == 0 && j.level >= LevelError && !slices.Contains(j.owners, lv) {
			// The record's own level says error: its message need
			// not (`{"level": "ERROR", "message": "engine stopped"}`).
			j.owners = append(j.owners, lv)
		}
		e.processLine(j.text[pos:end], j.owners)
		pos = end + 1
	}
}

// parseLogfmt reads a logfmt line, as Go services and log shippers write
// records (ts=… level=error msg="…"): nothing but key=value pairs, values
// bare or double-quoted with backslash escapes, one of them the message.
// It returns the message, still escaped, and keeps the time and level.
func (j *jsonLine) parseLogfmt(t []byte) ([]byte, bool) {
	var msg, ts, level []byte
	found := false
	for len(t) > 0 {
		// Each word starts with a key: most lines are turned away at
		// their first.
		eq := bytes.IndexByte(t, '=')
		if eq <= 0 || !logfmtKey(t[:eq]) {
			return nil, false
		}
		key := t[:eq]
		t = t[eq+1:]
		var v []byte
		if len(t) > 0 && t[0] == '"' {
			end := closingQuote(t)
			if end < 0 {
				return nil, false
			}
			v, t = t[1:end], t[end+1:]
		} else {
			end := bytes.IndexByte(t, ' ')
			if end < 0 {
				end = len(t)
			}
			v, t = t[:end], t[end:]
		}
		t = bytes.TrimLeft(t, " ")
		switch string(key) {
		case "msg", "message":
			msg, found = v, true
		case "ts", "time", "timestamp":
			ts = v
		case "level", "lvl", "severity":
			level = v
		}
	}
	if !found {
		return nil, false
	}
	j.time = append(j.time[:0], ts...)
	j.level = levelNamed(level)
	return msg, true
}

// levelNamed returns the level a record's level field names, or LevelNone.
func levelNamed(v []byte) Level {
	level := LevelNone
	for _, w := range levelWords {
		if bytes.EqualFold(v, []byte(w.word)) {
			level = w.level
		}
	}
	return level
}

// logfmtKey reports whether b is a logfmt key: a letter or '_', then
// letters, digits, '_', '.' or '-'.
func logfmtKey(b []byte) bool {
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return len(b) > 0
}

// closingQuote returns the index of the quote that ends the quoted string
// at the start of b (a JSON or logfmt value), or -1.
func closingQuote(b []byte) int {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
