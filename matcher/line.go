package matcher

import (
	"bytes"
	"slices"
)

// Level is the severity a line's own format states: glog's E and F
// letters, torch's [E…] lines, uvicorn's and Python logging's ERROR:, a
// Rust router's ERROR. Most sglang lines state none.
type Level uint8

const (
	LevelNone Level = iota
	LevelInfo
	LevelWarning
	LevelError
	LevelFatal
)

// Line is the matching view of one log line, taken apart.
type Line struct {
	// Stream names the writer when every line of the input carries it: a
	// docker compose service, a Ray actor, a torchrun rank. Lines of
	// different streams never join one event. Empty when there is none.
	Stream []byte
	// Rank is the torchrun rank prefix ("rank3"), when there is one.
	Rank []byte
	// Header is sglang's "[time RANKS]" header, when the line has one.
	Header Header
	// Record is true when the line starts a log record of its own: an
	// sglang header, a glog or torch line, a level prefix, an NCCL line.
	// Lines without it may continue the record before them.
	Record bool
	// Level is the level the line's format states.
	Level Level
	// Msg is the message: the line without any of the above.
	Msg []byte

	stamp []byte // a syslog prefix's time, for a line with no header of its own
	// native is set for a record whose header names a C or C++ source
	// file ("E0423 16:34:48.911491 217200 client.cpp:347] …"): a line of
	// native code, which no Python source of sglang's writes.
	native bool
}

// ParseLine takes a normalized line apart: first the prefixes some
// runtimes put on every line (a platform timestamp, a docker compose
// service or an srun task label, a Ray actor, a torchrun rank), then the record header (sglang's
// "[time RANKS]", glog, torch, uvicorn, Python logging, Rust tracing, NCCL).
// It does not allocate; the parts are sub-slices of line.
func ParseLine(line []byte) Line {
	var l Line
	parseRecord(&l, cutStreams(&l, line))
	return l
}

// cutStreams takes the prefixes that name a line's writer off it (a
// platform timestamp, a compose service or srun task label, a Ray actor, a
// torchrun rank) into l and returns the rest of the line.
func cutStreams(l *Line, line []byte) []byte {
	orig := line
	at := func(rest []byte) int { return len(orig) - len(rest) }
	streamStart, streamEnd := -1, -1
	// A platform's timestamp is the line's time when nothing before it
	// gave one and the line states none of its own.
	platform := func(line []byte) []byte {
		rest := trimPlatformStamp(line)
		if len(rest) < len(line) && len(l.stamp) == 0 {
			l.stamp = stampIn(line[:len(line)-len(rest)])
		}
		return rest
	}
	if stamp, rest, ok := cutCloudSeverity(line); ok {
		l.stamp, line = stamp, rest
	}
	line = platform(line)
	if tag, rest, ok := cutSyslog(line); ok {
		streamEnd = at(rest) - len(": ")
		streamStart = streamEnd - len(tag)
		l.stamp = stampIn(line[:len(line)-len(rest)])
		line = platform(rest)
	}
	// Under journald's header, a compose service's or a task's label of
	// its own (docker compose's output sent to journald): the label is
	// the stream.
	if svc, rest, ok := cutCompose(line); ok {
		streamStart, streamEnd = at(line), at(line)+len(svc)
		line = platform(rest)
	} else if task, rest, ok := cutTaskLabel(line); ok {
		streamStart, streamEnd = at(line), at(line)+len(task)
		line = rest
	}
	if t := bytes.TrimLeft(line, " \t"); len(t) < len(line) {
		// A paste indented as a whole: "  (SGLangEngine pid=1) …".
		if _, _, ok := cutRay(t); ok {
			line = t
		}
	}
	if actor, rest, ok := cutRay(line); ok {
		if streamStart < 0 {
			streamStart = at(line) + 1
		}
		streamEnd = at(line) + 1 + len(actor)
		line = rest
	}
	if rank, rest, ok := cutTorchRank(line); ok {
		if streamStart < 0 {
			streamStart = at(line) + 1
		}
		streamEnd = at(line) + 1 + len(rank)
		l.Rank, line = rank, rest
	}
	if streamStart >= 0 {
		l.Stream = orig[streamStart:streamEnd]
	}
	return line
}

// parseRecord takes the record header (sglang's, glog, torch, a level
// word, NCCL) off what cutStreams left of a line into l.
func parseRecord(l *Line, line []byte) {
	line = unglue(line)
	l.Header, line = SplitHeader(line)
	l.Record = len(l.Header.Time) > 0 || len(l.Header.Ranks) > 0
	if len(l.Header.Time) == 0 {
		l.Header.Time = l.stamp
	}
	if lvl, rest, ok := cutLevel(line); ok {
		l.native = nativeSource(line[:len(line)-len(rest)])
		l.Level, l.Record, line = lvl, true, rest
	}
	l.Msg = cutRayRepeat(line)
}

// nativeSources are the endings of the C, C++ and CUDA files a record
// header may name.
var nativeSources = [][]byte{[]byte(".cpp:"), []byte(".cc:"), []byte(".cu:"), []byte(".c:"), []byte(".h:"), []byte(".hpp:"), []byte(".cxx:")}

// nativeSource reports whether a record header names a C, C++ or CUDA
// source file and line ("client.cpp:347]").
func nativeSource(header []byte) bool {
	end := bytes.LastIndexByte(header, ']')
	if end < 0 {
		return false
	}
	loc := header[:end]
	loc = loc[bytes.LastIndexAny(loc, " [")+1:]
	colon := bytes.LastIndexByte(loc, ':')
	if colon < 0 || !isDigits(loc[colon+1:]) {
		return false
	}
	for _, ext := range nativeSources {
		if bytes.HasSuffix(loc[:colon+1], ext) {
			return true
		}
	}
	return false
}

// cutRayRepeat drops the note Ray's log deduplication puts after a line
// that several workers printed: "… [repeated 27x across cluster]".
func cutRayRepeat(msg []byte) []byte {
	t := bytes.TrimRight(msg, " ")
	if !bytes.HasSuffix(t, []byte("x across cluster]")) {
		return msg
	}
	i := bytes.LastIndex(t, []byte(" [repeated "))
	if i < 0 || !isDigits(t[i+len(" [repeated "):len(t)-len("x across cluster]")]) {
		return msg
	}
	return msg[:i]
}

// cloudSeverities are the severities of a Cloud Logging entry.
var cloudSeverities = []string{"DEFAULT", "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL", "ALERT", "EMERGENCY"}

// cutCloudSeverity takes a Cloud Logging export's prefix off a line:
// "ERROR 2025-04-07T19:13:52Z {labels} ". Its severity is dropped: for a
// container's plain-text output it is the stream's (stderr is ERROR, stdout
// INFO), not the line's, and sglang logs everything to stderr. The
// timestamp is returned for a line with no time of its own.
func cutCloudSeverity(line []byte) (stamp, rest []byte, ok bool) {
	stamp, t, ok := cutSeverityStamp(line)
	if !ok || len(t) < 2 || t[0] != '{' {
		return nil, line, false
	}
	end := bytes.IndexByte(t, '}')
	if end < 0 || end+1 >= len(t) || t[end+1] != ' ' {
		return nil, line, false
	}
	return stamp, t[end+2:], true
}

// cutSeverityStamp takes a log console's prefix of a severity word and an
// RFC 3339 time off a line ("ERROR 2025-04-07T19:13:52.317Z "), and returns
// the time and the rest. An export that leaves out each entry's labels
// writes it before every line. ParseLine keeps such a line's words, for
// another program may print its own level that way; a stream whose every
// line carries it is learnt as a header (see headerLearner).
func cutSeverityStamp(line []byte) (stamp, rest []byte, ok bool) {
	sev, after, found := bytes.Cut(line, []byte(" "))
	if !found || !slices.Contains(cloudSeverities, string(sev)) {
		return nil, line, false
	}
	rest = trimPlatformStamp(after)
	if len(rest) == len(after) {
		return nil, line, false
	}
	return bytes.TrimRight(after[:len(after)-len(rest)], " \t"), rest, true
}

// trimPlatformStamp drops an RFC 3339 timestamp that a platform put before
// the line (kubectl logs --timestamps, docker logs -t, many log shippers),
// and the stream and tag that the container runtime's own files
// (/var/log/pods/…/0.log, the CRI format) write after it: "stderr F ".
func trimPlatformStamp(line []byte) []byte {
	rest := trimStamp(line)
	if len(rest) == len(line) {
		return line
	}
	return trimCRIStream(rest)
}

// trimCRIStream drops the stream and tag of a CRI log line, "stdout F " or
// "stderr P ". A P line is a part of a longer line the runtime split; its
// parts are read as lines of their own.
func trimCRIStream(rest []byte) []byte {
	const n = len("stdout F ")
	if len(rest) < n-1 || rest[6] != ' ' || (rest[7] != 'F' && rest[7] != 'P') {
		return rest
	}
	if s := string(rest[:6]); s != "stdout" && s != "stderr" {
		return rest
	}
	if len(rest) == n-1 {
		return rest[n-1:] // an empty line
	}
	if rest[8] != ' ' {
		return rest
	}
	return rest[n:]
}

// trimStamp drops an RFC 3339 timestamp and the space or tab after it, or
// one in brackets ("[2025-02-27T16:30:43.48Z] ").
func trimStamp(line []byte) []byte {
	if len(line) > 0 && line[0] == '[' {
		if i := stampEnd(line[1:]) + 1; i > 1 && i < len(line) && line[i] == ']' {
			return trimSpace1(line[i+1:])
		}
		return line
	}
	if i := stampEnd(line); i > 0 && i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		return line[i+1:] // a space (kubectl, docker), or a tab (Loki and Grafana exports)
	}
	return line
}

// stampEnd returns the length of the RFC 3339 timestamp line starts with,
// or 0.
func stampEnd(line []byte) int {
	const n = len("2006-01-02T15:04:05")
	if len(line) <= n || line[10] != 'T' || !isStampSep(line[:n], 'T') {
		return 0
	}
	i := n
	if i < len(line) && (line[i] == '.' || line[i] == ',') {
		i++
		for i < len(line) && line[i] >= '0' && line[i] <= '9' {
			i++
		}
	}
	switch {
	case i < len(line) && line[i] == 'Z':
		i++
	case i+6 <= len(line) && (line[i] == '+' || line[i] == '-') && line[i+3] == ':':
		i += 6
	}
	return i
}

// cutTaskLabel splits the task number that `srun --label` and similar
// launchers put before each line ("0: ") off a line.
func cutTaskLabel(line []byte) (label, rest []byte, ok bool) {
	d := 0
	for d < len(line) && d < 5 && line[d] >= '0' && line[d] <= '9' {
		d++
	}
	if d == 0 || d+1 >= len(line) || line[d] != ':' || line[d+1] != ' ' {
		return nil, line, false
	}
	return line[:d], line[d+2:], true
}

// cutCompose splits a docker compose prefix ("llm-prefill-0  | ") off a
// line: a container name, which compose ends in a replica number
// ("-1", "_1"), padding, a bar and a space.
func cutCompose(line []byte) (svc, rest []byte, ok bool) {
	i := 0
	for i < len(line) && isNameByte(line[i]) {
		i++
	}
	if i == 0 || i >= len(line) || line[i] != ' ' {
		return nil, line, false
	}
	j := i
	for j < len(line) && line[j] == ' ' {
		j++
	}
	// Compose pads names to one width, so only the longest has a single
	// space before the bar; without padding, ask for a name shaped like a
	// container's.
	if j-i < 2 && !endsInReplica(line[:i]) && bytes.IndexAny(line[:i], "-_") < 0 {
		return nil, line, false
	}
	if j+1 >= len(line) || line[j] != '|' || line[j+1] != ' ' {
		if j < len(line) && line[j] == '|' && j+1 == len(line) {
			return line[:i], nil, true // an empty line from the service
		}
		return nil, line, false
	}
	return line[:i], line[j+2:], true
}

// cutSyslog takes off a syslog or journald prefix, "Mar 14 06:20:15
// gpu-node-4 python3[5113]: ": tag is the process, "python3[5113]", so
// that the lines of two processes never join one event.
func cutSyslog(line []byte) (tag, rest []byte, ok bool) {
	if len(line) < 20 || !isUpper(line[0]) || !isLower(line[1]) || !isLower(line[2]) || line[3] != ' ' {
		return nil, line, false
	}
	i := 4
	if line[i] == ' ' {
		i++ // a day of one digit is padded
	}
	for n := 0; n < 2 && i < len(line) && isDigit(line[i]); n++ {
		i++
	}
	if i+9 > len(line) || line[i] != ' ' || !isDigit(line[i+1]) || line[i+3] != ':' || line[i+6] != ':' {
		return nil, line, false
	}
	i += 9
	for i < len(line) && (isDigit(line[i]) || line[i] == '.') {
		i++ // fractions of a second
	}
	if i >= len(line) || line[i] != ' ' {
		return nil, line, false
	}
	i++
	host := i
	for i < len(line) && line[i] != ' ' {
		i++
	}
	if i == host || i >= len(line) {
		return nil, line, false
	}
	i++
	start := i
	for i < len(line) && line[i] != ' ' && line[i] != ':' && line[i] != '[' {
		i++
	}
	if i == start || i >= len(line) {
		return nil, line, false
	}
	if line[i] == '[' {
		for i++; i < len(line) && isDigit(line[i]); i++ {
		}
		if i >= len(line) || line[i] != ']' {
			return nil, line, false
		}
		i++
	}
	if i+1 >= len(line) || line[i] != ':' || line[i+1] != ' ' {
		return nil, line, false
	}
	return line[start:i], line[i+2:], true
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// endsInReplica reports whether a container name ends in "-N" or "_N".
func endsInReplica(name []byte) bool {
	d := len(name)
	for d > 0 && name[d-1] >= '0' && name[d-1] <= '9' {
		d--
	}
	return d < len(name) && d > 1 && (name[d-1] == '-' || name[d-1] == '_')
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '*'
}

// cutRay splits Ray's "(Actor pid=123, ip=10.0.0.1) " prefix off a line.
func cutRay(line []byte) (actor, rest []byte, ok bool) {
	if len(line) < len("(a pid=1) ") || line[0] != '(' {
		return nil, line, false
	}
	end := bytes.IndexByte(line, ')')
	if end < 0 || end+1 >= len(line) || line[end+1] != ' ' {
		return nil, line, false
	}
	inner := line[1:end]
	p := bytes.Index(inner, []byte("pid="))
	if p < 0 || (p > 0 && inner[p-1] != ' ') {
		return nil, line, false
	}
	d := p + 4
	for d < len(inner) && inner[d] >= '0' && inner[d] <= '9' {
		d++
	}
	if d == p+4 || (d < len(inner) && inner[d] != ',') {
		return nil, line, false
	}
	return line[1:end], line[end+2:], true
}

// cutTorchRank splits torchrun's "[rank3]:" prefix off a line. The text
// after it may start with a space or directly with a torch log header.
func cutTorchRank(line []byte) (rank, rest []byte, ok bool) {
	if !bytes.HasPrefix(line, []byte("[rank")) {
		return nil, line, false
	}
	d := len("[rank")
	for d < len(line) && line[d] >= '0' && line[d] <= '9' {
		d++
	}
	if d == len("[rank") || d+1 >= len(line) || line[d] != ']' || line[d+1] != ':' {
		return nil, line, false
	}
	rest = line[d+2:]
	if len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	return line[1:d], rest, true
}

// unglue drops a progress bar that another line was written right after,
// with no newline between: tqdm ends its bar with its timing block and
// prints nothing after it, so what follows is the next line —
// "…5/5 [00:04<00:00,  1.10it/s][2026-… TP0] msg", or a crash report
// "…4/51 [00:20<03:35,  4.59s/it]Fatal Python error: Segmentation fault".
func unglue(line []byte) []byte {
	end := progressEnd(line)
	if end < 0 {
		return line
	}
	if rest := bytes.TrimLeft(line[end:], " "); len(rest) > 0 {
		return rest
	}
	return line
}

// progressEnd returns the index just after the timing block that ends a
// tqdm bar, "[00:20<03:35,  4.59s/it]" or "[00:00<?, ?it/s]", or -1.
func progressEnd(line []byte) int {
	if bytes.IndexByte(line, '<') < 0 {
		return -1 // most lines: no bar's timing block
	}
	end := -1
	for _, tail := range [][]byte{[]byte("it/s]"), []byte("s/it]"), []byte("?]")} {
		if i := bytes.LastIndex(line, tail); i >= 0 && i+len(tail) > end {
			end = i + len(tail)
		}
	}
	if end < 0 {
		return -1
	}
	open := bytes.LastIndexByte(line[:end], '[')
	if open < 0 || end-open > 48 {
		return -1
	}
	block := line[open:end]
	if bytes.IndexByte(block, '<') < 0 || bytes.IndexByte(block, ':') < 0 {
		return -1
	}
	return end
}

// cutLevel recognises the record headers that state a level and returns
// the message after them.
func cutLevel(line []byte) (Level, []byte, bool) {
	if len(line) < 6 {
		return LevelNone, line, false
	}
	switch c := line[0]; {
	case c == 'I' || c == 'W' || c == 'E' || c == 'F':
		if end := glogHeader(line); end > 0 {
			return glogLevel(c), trimSpace1(line[end+1:]), true
		}
	case c == '[':
		// torch: "[E1129 10:15:02.123456789 ProcessGroupNCCL.cpp:630] msg"
		if end := glogHeader(line[1:]); end > 0 {
			return glogLevel(line[1]), trimSpace1(line[end+2:]), true
		}
	case c >= '0' && c <= '9':
		if lvl, n := rustHeader(line); n > 0 {
			return lvl, line[n:], true
		}
	case c == ' ' || c == '\t':
		// A paste indented as a block: a timestamp and a level that
		// start the text are a header all the same, before the indent is
		// learnt (a traceback's continuation never starts with a date).
		t := bytes.TrimLeft(line, " \t")
		if len(t) > 0 && t[0] >= '0' && t[0] <= '9' {
			if lvl, n := rustHeader(t); n > 0 {
				return lvl, t[n:], true
			}
		}
	}
	if lvl, n := levelWord(line); n > 0 {
		return lvl, line[n:], true
	}
	if n := ncclHeader(line); n > 0 {
		// NCCL has two levels: INFO, and WARN for the failure it is about
		// to return as an error code (ncclSystemError, ncclInternalError).
		lvl := LevelInfo
		if bytes.HasPrefix(line[n:], []byte("WARN")) {
			lvl = LevelError
		}
		return lvl, line[n:], true
	}
	if lvl, n := angleHeader(line); n > 0 {
		return lvl, line[n:], true
	}
	return LevelNone, line, false
}

// angleLevels are the levels C libraries write in angle brackets.
var angleLevels = []struct {
	word  string
	level Level
}{
	{"<trace> ", LevelInfo}, {"<debug> ", LevelInfo}, {"<info> ", LevelInfo},
	{"<warn> ", LevelWarning}, {"<warning> ", LevelWarning},
	{"<error> ", LevelError}, {"<crit> ", LevelFatal}, {"<fatal> ", LevelFatal},
}

// angleHeader returns the length of a header that names where a C library
// logs from, colon-separated and without spaces, and ends in its level in
// angle brackets: libfabric's
// "libfabric:2316560:1789518434::core:core:fi_getinfo_():1392<warn> ".
func angleHeader(b []byte) (Level, int) {
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 || sp > 200 {
		return LevelNone, 0
	}
	open := bytes.LastIndexByte(b[:sp], '<')
	if open < 0 || bytes.Count(b[:open], []byte{':'}) < 2 {
		return LevelNone, 0
	}
	for _, w := range angleLevels {
		if bytes.HasPrefix(b[open:], []byte(w.word)) && open+len(w.word) == sp+1 {
			return w.level, sp + 1
		}
	}
	return LevelNone, 0
}

func glogLevel(c byte) Level {
	switch c {
	case 'W':
		return LevelWarning
	case 'E':
		return LevelError
	case 'F':
		return LevelFatal
	}
	return LevelInfo
}

// glogHeader returns the index of the ']' that ends a glog header,
// "E0529 23:22:59.553695 67580 rdma_context.cpp:203] ", or torch's variant
// (seen from after its opening bracket), "E1129 10:15:02.123456789
// ProcessGroupNCCL.cpp:630] ". It returns -1 for anything else.
func glogHeader(b []byte) int {
	// Level letter, MMDD (torch drops the month's leading zero), space,
	// HH:MM:SS.
	if len(b) < 16 || b[0] != 'I' && b[0] != 'W' && b[0] != 'E' && b[0] != 'F' {
		return -1
	}
	d := 1
	for d < 5 && b[d] >= '0' && b[d] <= '9' {
		d++
	}
	if d < 4 || b[d] != ' ' || !isClock(b[d+1:d+9]) {
		return -1
	}
	i := d + 9
	if b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if end := sourceEnd(b[i:]); end >= 0 {
		return i + end
	}
	return -1
}

// sourceEnd returns the index of the ']' that ends the source location of a
// glog-style header, "file.cc:203]" or, with the thread id glog writes
// before it, "67580 file.cc:203]", or -1.
func sourceEnd(b []byte) int {
	end := bytes.IndexByte(b, ']')
	if end < 0 || end > 256 {
		return -1
	}
	loc := b[:end]
	if sp := bytes.LastIndexByte(loc, ' '); sp >= 0 {
		if !isDigits(loc[:sp]) {
			return -1
		}
		loc = loc[sp+1:]
	}
	colon := bytes.LastIndexByte(loc, ':')
	if colon <= 0 || !isDigits(loc[colon+1:]) {
		return -1
	}
	return end
}

// trimSpace1 drops one leading space.
func trimSpace1(b []byte) []byte {
	if len(b) > 0 && b[0] == ' ' {
		return b[1:]
	}
	return b
}

// isClock reports whether b looks like "15:04:05".
func isClock(b []byte) bool {
	return len(b) == 8 && isDigits(b[0:2]) && b[2] == ':' && isDigits(b[3:5]) && b[5] == ':' && isDigits(b[6:8])
}

// rustHeader recognises tracing's "2026-11-29 10:20:00  INFO target: …"
// (and the RFC 3339 form) and returns the level and the message start.
func rustHeader(b []byte) (Level, int) {
	const n = len("2006-01-02 15:04:05")
	if len(b) < n+6 || !isStampSep(b[:n], b[10]) || b[10] != ' ' && b[10] != 'T' {
		return LevelNone, 0
	}
	i := n
	if b[i] == '.' || b[i] == ',' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && b[i] == 'Z' {
		i++
	}
	if lvl, m := abslLevel(b[i:]); m > 0 {
		return lvl, i + m
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if lvl, m := stampedLevel(b[i:]); m > 0 {
		return lvl, i + m
	}
	return LevelNone, 0
}

// abslLevel reads the level and source that absl's and TensorFlow's C++
// logging write after their timestamp, ": I tensorflow/core/util/port.cc:153] ",
// and returns the length of what it read, or 0. Its letters are glog's.
func abslLevel(b []byte) (Level, int) {
	if len(b) < 6 || b[0] != ':' || b[1] != ' ' || b[3] != ' ' {
		return LevelNone, 0
	}
	switch b[2] {
	case 'I', 'W', 'E', 'F':
	default:
		return LevelNone, 0
	}
	end := sourceEnd(b[4:])
	if end <= 0 {
		return LevelNone, 0
	}
	n := 4 + end + 1
	if n < len(b) && b[n] == ' ' {
		n++
	}
	return glogLevel(b[2]), n
}

// stampedLevel reads the level that follows a timestamp in the shapes
// loggers print it: "ERROR msg" (Rust tracing), "[ERROR] msg", and Python
// logging's "- ERROR - msg" or "- name - ERROR - msg". It returns the
// length of what it read, or 0.
func stampedLevel(b []byte) (Level, int) {
	word := func(b []byte, after string) (Level, int) {
		for _, w := range levelWords {
			if bytes.HasPrefix(b, []byte(w.word)) && bytes.HasPrefix(b[len(w.word):], []byte(after)) {
				return w.level, len(w.word) + len(after)
			}
		}
		return LevelNone, 0
	}
	if lvl, n := word(b, " "); n > 0 {
		return lvl, n
	}
	if len(b) > 0 && b[0] == '[' {
		if lvl, n := word(b[1:], "] "); n > 0 {
			return lvl, 1 + n
		}
	}
	if bytes.HasPrefix(b, []byte("| ")) {
		return pipedLevel(b)
	}
	if !bytes.HasPrefix(b, []byte("- ")) {
		return LevelNone, 0
	}
	if lvl, n := word(b[2:], " - "); n > 0 {
		return lvl, 2 + n
	}
	// A logger's name first: one word, then the level.
	j := bytes.Index(b[2:], []byte(" - "))
	if j <= 0 || j > 64 || bytes.IndexByte(b[2:2+j], ' ') >= 0 {
		return LevelNone, 0
	}
	if lvl, n := word(b[2+j+3:], " - "); n > 0 {
		return lvl, 2 + j + 3 + n
	}
	return LevelNone, 0
}

// pipedLevel reads the fields loguru and the loggers built like it put
// after a timestamp, "| ERROR    | module:function:42 - msg" or
// "| ERROR | stderr | msg": the level, padded, and a name without spaces
// before the message. A wrapper that re-logs a child's output under the
// name of its stream ("stderr", "stdout") gives every line of it the
// stream's level, a progress bar on stderr ERROR: that level says nothing
// of the line, and is dropped.
func pipedLevel(b []byte) (Level, int) {
	end := bytes.Index(b[2:], []byte(" | "))
	if end <= 0 || end > 16 {
		return LevelNone, 0
	}
	lvl := LevelNone
	field := bytes.TrimSpace(b[2 : 2+end])
	for _, w := range levelWords {
		if string(field) == w.word {
			lvl = w.level
		}
	}
	if lvl == LevelNone {
		return LevelNone, 0
	}
	n := 2 + end + len(" | ")
	rest := b[n:]
	for _, sep := range []string{" | ", " - "} {
		if j := bytes.Index(rest, []byte(sep)); j > 0 && j <= 96 && bytes.IndexByte(rest[:j], ' ') < 0 {
			if name := string(rest[:j]); name == "stderr" || name == "stdout" {
				lvl = LevelNone
			}
			return lvl, n + j + len(sep)
		}
	}
	return lvl, n
}

var levelWords = []struct {
	word  string
	level Level
}{
	{"ERROR", LevelError}, {"CRITICAL", LevelFatal}, {"FATAL", LevelFatal},
	{"WARNING", LevelWarning}, {"WARN", LevelWarning}, {"INFO", LevelInfo},
	{"DEBUG", LevelInfo}, {"TRACE", LevelInfo},
}

// levelWord recognises a level name that starts a message: uvicorn's
// "ERROR:    msg", Python logging's "ERROR:root:msg", vLLM-style
// "ERROR 11-29 10:15:02 file.py:12] msg".
func levelWord(b []byte) (Level, int) {
	for _, w := range levelWords {
		if !bytes.HasPrefix(b, []byte(w.word)) || len(b) <= len(w.word)+1 {
			continue
		}
		i := len(w.word)
		switch {
		case b[i] == ':' && b[i+1] == ' ':
			// uvicorn pads "LEVEL:" so that messages start at column 10;
			// Python logging puts one space, and what follows it (the
			// indentation of a traceback's line) is the message's.
			n := 0
			for i+1+n < len(b) && b[i+1+n] == ' ' {
				n++
			}
			if n == max(1, 9-len(w.word)) {
				return w.level, i + 1 + n
			}
			return w.level, i + 2
		case b[i] == ':' && isNameByte(b[i+1]):
			// Python logging's default "LEVEL:logger:msg".
			if j := bytes.IndexByte(b[i+1:], ':'); j > 0 && bytes.IndexByte(b[i+1:i+1+j], ' ') < 0 {
				return w.level, i + 2 + j
			}
		case b[i] == ' ' && len(b) > i+15 && isDigits(b[i+1:i+3]) && b[i+3] == '-' && isClock(b[i+7:i+15]):
			if j := bytes.Index(b[i:], []byte("] ")); j > 0 {
				return w.level, i + j + 2
			}
		case b[i] == ' ' && rustTarget(b[i+1:]):
			// Rust tracing after a platform stamp: "ERROR smg::routers::pd: msg".
			return w.level, i + 1
		}
	}
	return LevelNone, 0
}

// rustTarget reports whether b starts with a Rust module path and a
// colon, "smg::routers::http::pd_router: ", or a tracing span.
func rustTarget(b []byte) bool {
	j := bytes.IndexByte(b, ' ')
	if j < 0 {
		return false
	}
	tok := b[:j]
	return bytes.Contains(tok, []byte("::")) && tok[len(tok)-1] == ':' || bytes.HasPrefix(tok, []byte("http_request{"))
}

// ncclHeader returns the length of NCCL's "host:pid:tid [dev] NCCL " prefix.
func ncclHeader(b []byte) int {
	i := bytes.Index(b, []byte("] NCCL "))
	if i < 0 || i > 200 {
		return 0
	}
	open := bytes.LastIndexByte(b[:i], '[')
	if open < 2 || b[open-1] != ' ' || !isDigits(b[open+1:i]) {
		return 0
	}
	host := b[:open-1]
	if bytes.Count(host, []byte{':'}) < 2 || bytes.IndexByte(host, ' ') >= 0 {
		return 0
	}
	return i + len("] NCCL ")
}
