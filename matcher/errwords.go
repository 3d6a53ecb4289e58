package matcher

import (
	"bytes"
	"strings"
)

// The words a message uses to say that something went wrong, in any log
// format, with or without a level. The automaton proposes a line for them
// (markWord); saysError confirms it, word by word, without allocating.

// errWords are the words, lowercase; a word counts in lowercase,
// capitalised or upper case. Besides the words of failure, the phrases
// with which a system call, a connection or an allocation says it could not
// be done ("No such file or directory", "Connection refused"). Each is
// whole: "errors" is listed, so that "error" does not count inside
// "errorsome".
var errWords = []string{
	"error", "errors",
	"exception", "exceptions",
	"fail", "fails", "failed", "failing", "failure", "failures",
	"fatal",
	"abort", "aborts", "aborted", "aborting",
	"panic", "panics", "panicked",
	"assert", "asserts", "assertion", "assertions",
	"killed",
	"timeout", "timeouts", "timed out",
	"segmentation fault", "segfault", "segfaulted",
	"nan", "nans", "inf",
	"could not", "cannot", "unable to",
	"no such file or directory", "permission denied", "connection refused", "no route to host", "unreachable",
	"out of memory", "core dumped", "unauthorized", "forbidden",
}

// wordNeedles are the automaton's needles for errWords: their case
// variants, short enough to cover the inflected forms, and the level and
// status shapes saysError also reads.
var wordNeedles = []string{
	"error", "Error", "ERROR",
	"exception", "Exception", "EXCEPTION",
	"fail", "Fail", "FAIL",
	"fatal", "Fatal", "FATAL",
	"abort", "Abort", "ABORT",
	"panic", "Panic", "PANIC",
	"assert", "Assert", "ASSERT",
	"killed", "Killed", "KILLED",
	"timeout", "Timeout", "TIMEOUT", "timed out", "Timed out", "TIMED OUT",
	"egmentation fault", "egmentation Fault", "EGMENTATION FAULT", "segfault", "Segfault", "SegFault", "SEGFAULT",
	"nan", "NaN", "NAN", "Nan",
	"could not", "Could not", "COULD NOT", "cannot", "Cannot", "CANNOT", "unable to", "Unable to", "UNABLE TO",
	"o such file or directory", "ermission denied", "onnection refused", "o route to host", "nreachable", "NREACHABLE",
	"out of memory", "Out of memory", "OUT OF MEMORY", "ore dumped", "nauthorized", "NAUTHORIZED", "orbidden", "ORBIDDEN",
	"[E]",
	`HTTP/1.1" 4`, `HTTP/1.1" 5`, `HTTP/1.0" 4`, `HTTP/1.0" 5`,
	`HTTP/2" 4`, `HTTP/2" 5`, `HTTP/2.0" 4`, `HTTP/2.0" 5`,
}

// saysError reports whether a message says that something went wrong: an
// error word used as a word, a bracketed error level ("[E]"), or an HTTP
// response at status 4xx or 5xx. A level the line states below error
// (INFO, WARNING) leaves only the HTTP status: an access log is written at
// INFO whatever the status.
func saysError(msg []byte, lvl Level) bool {
	if httpErrorStatus(msg) {
		return true
	}
	if lvl == LevelInfo || lvl == LevelWarning || flagListing(msg) || sourceLine(msg) || pythonWarning(msg) || warningAfterBar(msg) || pydanticDetail(msg) ||
		bytes.Equal(msg, duringHandling) || bytes.Equal(msg, directCause) || introduces(msg) || taskListItem(msg) {
		return false
	}
	if bytes.Contains(msg, []byte("[E]")) {
		return true
	}
	for i := 0; i < len(msg); i++ {
		if i > 0 && isIdentByte(msg[i-1]) {
			continue // inside a word: "mirror", "TypeError"
		}
		n := errWordAt(msg[i:])
		if n == 0 {
			continue
		}
		if errWordCounts(msg, i, i+n) {
			return true
		}
		i += n - 1
	}
	return embeddedException(msg)
}

// embeddedException reports whether a message carries an exception line
// after other text ("… failed: torch.OutOfMemoryError: CUDA out of
// memory", "worker 3 stopped with KVTransferError: …"): a class named as
// one (its last part capitalised, ending in Error or Exception), then ": "
// and its message. A class only named ("caught a TypeError, retrying") or
// a C++ scope ("c10::Error::Error") is not one.
func embeddedException(msg []byte) bool {
	if leadingException(msg) {
		return true
	}
	for _, suffix := range [][]byte{[]byte("Error: "), []byte("Exception: ")} {
		for off := 0; ; {
			i := bytes.Index(msg[off:], suffix)
			if i < 0 {
				break
			}
			i += off
			off = i + len(suffix)
			rest := msg[off:]
			if len(rest) == 0 || rest[0] == ' ' {
				continue
			}
			// The class's last part: back to a '.', or to where the name
			// starts.
			start := i
			for start > 0 && isIdentByte(msg[start-1]) {
				start--
			}
			switch {
			case start == i, msg[start] < 'A' || msg[start] > 'Z':
				// "Error: " alone (an error word, read as one), or a
				// lowercase name ("pyerror: ").
			case start > 0 && msg[start-1] == ':':
				// A C++ scope.
			default:
				return true
			}
		}
	}
	return false
}

// leadingException reports whether a message opens with an exception's
// class as its subject ("RuntimeError in llava image encoding: …",
// "ValueError raised while loading shard 3"): a class name as
// embeddedException reads one, then a space and a word in lowercase.
func leadingException(msg []byte) bool {
	t := bytes.TrimLeft(msg, " \t")
	n := 0
	for n < len(t) && (isIdentByte(t[n]) || t[n] == '.') {
		n++
	}
	name := t[:n]
	if !bytes.HasSuffix(name, []byte("Error")) && !bytes.HasSuffix(name, []byte("Exception")) {
		return false
	}
	last := name[bytes.LastIndexByte(name, '.')+1:]
	if len(last) <= len("Error") || last[0] < 'A' || last[0] > 'Z' {
		return false // "Error in …" is read by its word; "pyerror"
	}
	rest := t[n:]
	return len(rest) > 1 && rest[0] == ' ' && 'a' <= rest[1] && rest[1] <= 'z'
}

// errWordAt returns the length of the error word at the start of b, or 0.
// The word must end there: no letter, digit or '_' after it.
func errWordAt(b []byte) int {
	best := 0
	for _, w := range errWords {
		n := len(w)
		if n <= best || len(b) < n || !sameWord(b[:n], w) {
			continue
		}
		if n < len(b) && isIdentByte(b[n]) {
			continue
		}
		best = n
	}
	return best
}

// sameWord compares b with the lowercase word w in lowercase, capitalised
// or upper case ("error", "Error", "Timed Out", "ERROR"), and as "NaN".
func sameWord(b []byte, w string) bool {
	lower, upper := true, true
	for i := 0; i < len(w); i++ {
		c := b[i]
		switch {
		case c == w[i]:
			upper = upper && (c < 'a' || c > 'z')
		case c == w[i]-'a'+'A' && w[i] >= 'a' && w[i] <= 'z':
			lower = lower && (i == 0 || w[i-1] == ' ') // "Error", "Segmentation Fault"
		default:
			return false
		}
	}
	return lower || upper || (len(w) >= 3 && w[:3] == "nan" && b[0] == 'N' && b[1] == 'a' && b[2] == 'N')
}

// errWordCounts reports whether the error word at msg[i:j] says something
// went wrong, or is a name, a setting, a count of none or a part of a
// path, a URL or a flag.
func errWordCounts(msg []byte, i, j int) bool {
	word := msg[i:j]
	if i > 0 {
		switch msg[i-1] {
		case '-', '/', '.', '\\', '$', '@', '#', '%':
			return false // "--disable-fail-fast", "/error_handler.py", "#errors"
		case ':':
			if i > 1 && msg[i-2] == ':' {
				return false // a C++ name: "c10::Error"
			}
		case '\'', '"':
			if i > 1 && msg[i-2] == '=' {
				return false // a setting's value: log_level='error'
			}
		}
	}
	if j < len(msg) {
		switch c := msg[j]; {
		case c == '-' && j+1 < len(msg) && isIdentByte(msg[j+1]),
			c == '.' && j+1 < len(msg) && isIdentByte(msg[j+1]),
			c == '/' && j+1 < len(msg) && msg[j+1] != ' ' && !isNaN(word),
			c == ':' && j+1 < len(msg) && msg[j+1] == ':':
			return false // "fail-fast", "error.log", "errors/"; "NaN/Inf" is read below
		}
	}
	if inURL(msg, i) {
		return false
	}
	if noneBefore(msg[:i]) || noneAfter(msg[j:]) || metricAfter(msg[j:]) {
		return false // "0 errors", "errors: 0", "error=None", "error rate"
	}
	lw := lowerWord(word)
	switch {
	case lw == "timeout" || lw == "timeouts":
		return !settingAfter(msg[j:])
	case lw == "nan" || lw == "nans" || lw == "inf":
		return nanInMessage(msg, i, j)
	case strings.HasPrefix(lw, "abort"):
		return !requestAfter(msg[j:])
	}
	return true
}

// requestAfter reports whether the words after an abort word name a
// request ("Abort request rid=…", "aborting the request", "aborted all
// requests"): a server aborts a request when its client goes away or a
// trainer cancels a rollout, which is the request's end, not a failure of
// the server. What aborted a process still counts ("Aborted (core
// dumped)", "abort() called").
func requestAfter(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " ")
	for _, filler := range []string{"the ", "all ", "last ", "this "} {
		if len(rest) >= len(filler) && sameWord(rest, filler) {
			rest = rest[len(filler):]
			break
		}
	}
	for _, w := range []string{"requests", "request", "reqs", "req"} {
		if len(rest) >= len(w) && sameWord(rest, w) && (len(rest) == len(w) || !isIdentByte(rest[len(w)])) {
			return true
		}
	}
	return false
}

// isNaN reports whether an error word is NaN or Inf.
func isNaN(w []byte) bool {
	lw := lowerWord(w)
	return lw == "nan" || lw == "nans" || lw == "inf"
}

// lowerWord returns an error word in lowercase, from a fixed set of words,
// without allocating.
func lowerWord(b []byte) string {
	for _, w := range errWords {
		if len(w) == len(b) && sameWord(b, w) {
			return w
		}
	}
	return ""
}

// noneValues are values that say there was nothing wrong.
var noneValues = []string{"0", "0.0", "0.00", "0.000", "0%", "none", "None", "null", "nil", "false", "False", "[]", "{}", `""`, "''"}

// noneAfter reports whether an error word is the name of a count or a
// field whose value says there was none: "errors: 0", "error=None",
// `"error": null`, "fail_count" is caught as an identifier before.
func noneAfter(rest []byte) bool {
	k := 0
	if k < len(rest) && (rest[k] == 's') {
		k++
	}
	for k < len(rest) && (rest[k] == '"' || rest[k] == '\'') {
		k++
	}
	for k < len(rest) && rest[k] == ' ' {
		k++
	}
	if k >= len(rest) || (rest[k] != ':' && rest[k] != '=') {
		return false
	}
	k++
	for k < len(rest) && rest[k] == ' ' {
		k++
	}
	v := rest[k:]
	for _, n := range noneValues {
		if bytes.HasPrefix(v, []byte(n)) && (len(v) == len(n) || !isIdentByte(v[len(n)]) && v[len(n)] != '.') {
			return true
		}
	}
	return false
}

// noneBefore reports whether the words before an error word say there was
// none of it: "0 errors", "no errors", "without error".
func noneBefore(before []byte) bool {
	before = bytes.TrimRight(before, " ")
	k := len(before)
	for k > 0 && isIdentByte(before[k-1]) {
		k--
	}
	switch string(before[k:]) {
	case "0", "no", "No", "NO", "without", "Without", "zero", "Zero":
		return true
	}
	return false
}

// metricAfter reports whether an error word names a metric: "error rate",
// "failure count".
func metricAfter(rest []byte) bool {
	for _, m := range []string{" rate", " ratio", " count", " budget", " threshold", " tolerance"} {
		if bytes.HasPrefix(rest, []byte(m)) && (len(rest) == len(m) || !isIdentByte(rest[len(m)])) {
			return true
		}
	}
	return false
}

// settingAfter reports whether "timeout" is a setting followed by its
// value ("timeout=600", "timeout: 30s", "timeout of 300 seconds"), rather
// than an event.
func settingAfter(rest []byte) bool {
	k := 0
	for k < len(rest) && (rest[k] == ' ' || rest[k] == '=' || rest[k] == ':' || rest[k] == '"' || rest[k] == '\'') {
		k++
	}
	for _, w := range []string{"of ", "to ", "is ", "set to "} {
		if bytes.HasPrefix(rest[k:], []byte(w)) {
			k += len(w)
			break
		}
	}
	return k < len(rest) && (rest[k] >= '0' && rest[k] <= '9' || bytes.HasPrefix(rest[k:], []byte("None")))
}

// nanContext are the words next to "NaN" or "Inf" when a message reports
// one, rather than names a check or an option for it.
var (
	nanBefore = []string{"loss", "is", "are", "got", "get", "contains", "contain", "has", "have", "had", "produced",
		"produces", "returned", "returns", "became", "become", "detected", "found", "encountered", "with", "of", "nan", "inf", "or"}
	nanAfter = []string{"in", "loss", "detected", "found", "encountered", "value", "values", "or", "and", "logits", "gradients", "output", "outputs"}
)

// nanInMessage reports whether a NaN or Inf at msg[i:j] is reported in a
// message sense: "NaN in the logits", "loss is nan", "nan loss",
// "loss=nan", "NaN/Inf".
func nanInMessage(msg []byte, i, j int) bool {
	if i > 0 && (msg[i-1] == '=' || msg[i-1] == ':') && lowerWord(msg[i:j]) != "inf" {
		return true // "loss=nan", "loss:nan"
	}
	if j+1 < len(msg) && msg[j] == '/' {
		return true // "NaN/Inf"
	}
	if i > 0 && msg[i-1] == '/' {
		return true
	}
	prev := bytes.TrimRight(msg[:i], " :=")
	k := len(prev)
	for k > 0 && isIdentByte(prev[k-1]) {
		k--
	}
	if hasWordFold(nanBefore, prev[k:]) {
		return true
	}
	next := bytes.TrimLeft(msg[j:], " ")
	k = 0
	for k < len(next) && isIdentByte(next[k]) {
		k++
	}
	return hasWordFold(nanAfter, next[:k])
}

// hasWordFold reports whether w, in any case, is one of the lowercase words.
func hasWordFold(words []string, w []byte) bool {
	for _, x := range words {
		if len(x) == len(w) && bytes.EqualFold([]byte(x), w) {
			return true
		}
	}
	return false
}

// inURL reports whether position i of msg is inside a URL: a run of
// non-space bytes holding "://".
func inURL(msg []byte, i int) bool {
	s := bytes.LastIndexByte(msg[:i], ' ') + 1
	e := bytes.IndexByte(msg[i:], ' ')
	if e < 0 {
		e = len(msg)
	} else {
		e += i
	}
	return bytes.Contains(msg[s:e], []byte("://"))
}

// flagListing reports whether a message lists launch flags, as a usage or
// help text does: it starts with "--".
func flagListing(msg []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(msg, " \t"), []byte("--"))
}

// taskListItem reports whether a message is an item of a Markdown task
// list, "- [x] 2. The bug has not been fixed in the latest version.": the
// checklist of an issue pasted with its log, prose rather than output.
func taskListItem(msg []byte) bool {
	t := bytes.TrimLeft(msg, " \t")
	if len(t) < 6 || (t[0] != '-' && t[0] != '*') || t[1] != ' ' || t[2] != '[' || t[4] != ']' || t[5] != ' ' {
		return false
	}
	return t[3] == ' ' || t[3] == 'x' || t[3] == 'X'
}

// introduces reports whether a message only announces the error on the
// lines after it: "Scheduler hit an exception:". Those lines are the
// finding.
func introduces(msg []byte) bool {
	t := bytes.TrimRight(msg, " \t")
	if !bytes.HasSuffix(t, []byte(":")) {
		return false
	}
	// A colon after a source location ends the location, and the line
	// says what happened there: "thread 'main' panicked at src/x.rs:589:79:"
	// (the panic's message, on the next line, need not name a failure).
	return !sourceLocation(t[:len(t)-1])
}

// sourceLocation reports whether text ends with a source file's location:
// "src/router.rs:589:79", "model_runner.py:212".
func sourceLocation(t []byte) bool {
	numbers := 0
	for ; numbers < 2; numbers++ {
		n := len(t)
		for n > 0 && isDigit(t[n-1]) {
			n--
		}
		if n == len(t) || n == 0 || t[n-1] != ':' {
			break
		}
		t = t[:n-1]
	}
	if numbers == 0 {
		return false
	}
	n := len(t)
	for n > 0 && isLetter(t[n-1]) {
		n--
	}
	return n < len(t) && len(t)-n <= 4 && n > 1 && t[n-1] == '.' && t[n-2] != '.' && t[n-2] != ' '
}

// pythonKeywords start the Python statements a traceback quotes under its
// frames.
var pythonKeywords = []string{"assert ", "raise ", "except ", "except:", "if ", "elif ", "while ", "return ", "await ", "def ", "with "}

// codePrefixes start lines of program source that an issue pastes beside
// its log: Python calls that print or log ("print(f\"Error: {e}\")"),
// Rust items and calls ("#[error(\"Validation failed\")]", ".expect(\"Failed
// to create client\")"), shell and batch-script comments ("#SBATCH
// --error=…").
var codePrefixes = []string{"print(", "logger.", "logging.", "warnings.warn(",
	"fn ", "pub fn ", "pub async fn ", "use ", "let ", "#[", ".expect(", ".map_err(", ".json(", "Err(",
	"# ", "#SBATCH ", "// "}

// sourceLine reports whether a message is a line of source code: Python,
// as a traceback quotes it ("assert x >= 0, \"x must not be negative\"";
// an excerpt that starts inside a traceback starts with one), or a line of
// code or a table an issue pastes beside its log.
func sourceLine(msg []byte) bool {
	t := bytes.TrimLeft(msg, " \t")
	for _, k := range pythonKeywords {
		if bytes.HasPrefix(t, []byte(k)) {
			return true
		}
	}
	for _, k := range codePrefixes {
		if bytes.HasPrefix(t, []byte(k)) {
			return true
		}
	}
	return tableRow(t)
}

// tableRow reports whether a line is a row of a Markdown table, "| Failed
// requests | 0 |": a benchmark's summary, not an error.
func tableRow(t []byte) bool {
	t = bytes.TrimRight(t, " \t")
	return len(t) > 2 && t[0] == '|' && t[len(t)-1] == '|'
}

// pythonWarning reports whether a message is a warning as Python's
// warnings module prints it, "/path/file.py:106: UserWarning: text": a
// warning by its own statement, whatever words its text uses.
func pythonWarning(msg []byte) bool {
	t := bytes.TrimLeft(msg, " \t")
	i := bytes.Index(t, []byte(".py:"))
	if i <= 0 || bytes.IndexByte(t[:i], ' ') >= 0 {
		return false
	}
	rest := t[i+len(".py:"):]
	n := 0
	for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	if n == 0 || !bytes.HasPrefix(rest[n:], []byte(": ")) {
		return false
	}
	rest = rest[n+2:]
	end := bytes.Index(rest, []byte(": "))
	if end < 0 {
		end = len(rest)
	}
	class := rest[:end]
	for _, c := range class {
		if !isIdentByte(c) && c != '.' {
			return false
		}
	}
	return bytes.HasSuffix(class, []byte("Warning"))
}

// warningAfterBar reports whether a message is a progress bar's redraw
// glued to a Python warning ("Capturing batches: 0%| | 0/16 [00:00<?,
// ?it/s]/usr/…/semantic.py:1670: UserWarning: …"): the warning's words are
// a warning's.
func warningAfterBar(msg []byte) bool {
	for _, end := range [][]byte{[]byte("it/s]"), []byte("s/it]")} {
		if i := bytes.Index(msg, end); i >= 0 && pythonWarning(msg[i+len(end):]) {
			return true
		}
	}
	return false
}

// pydanticDetail reports whether a message is one of the lines under
// pydantic's "N validation errors for Model" (which always comes first
// and says so itself): a field's problem ("Value error, …
// [type=value_error, input_value=…, input_type=str]") or the link after
// it ("For further information visit https://errors.pydantic.dev/…").
func pydanticDetail(msg []byte) bool {
	t := bytes.TrimSpace(msg)
	if bytes.HasPrefix(t, []byte("For further information visit https://errors.pydantic.dev/")) {
		return true
	}
	i := bytes.LastIndex(t, []byte(" [type="))
	return i >= 0 && t[len(t)-1] == ']' && bytes.Contains(t[i:], []byte(", input_value="))
}

// httpErrorStatus reports whether a message is an HTTP exchange answered
// with a 4xx or 5xx status: `"POST /v1/chat/completions HTTP/1.1" 500`.
func httpErrorStatus(msg []byte) bool {
	i := bytes.Index(msg, []byte("HTTP/"))
	for i >= 0 {
		rest := msg[i+len("HTTP/"):]
		k := 0
		for k < len(rest) && (rest[k] >= '0' && rest[k] <= '9' || rest[k] == '.') {
			k++
		}
		if k > 0 && k+5 <= len(rest) && rest[k] == '"' && rest[k+1] == ' ' &&
			(rest[k+2] == '4' || rest[k+2] == '5') && isDigit(rest[k+3]) && isDigit(rest[k+4]) &&
			(k+5 == len(rest) || !isIdentByte(rest[k+5])) {
			return true
		}
		j := bytes.Index(rest, []byte("HTTP/"))
		if j < 0 {
			return false
		}
		i += len("HTTP/") + j
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentByte reports whether c can be part of an identifier.
func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
