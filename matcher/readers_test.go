package matcher

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The regexps that splitExcLine and framePath read without one.
var (
	excLineRE   = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?::(?: (.*))?)?$`)
	framePathRE = regexp.MustCompile(`^\s*File "([^"]+)"`)
)

// readerLines are the lines splitExcLine and framePath are tried on: every
// line of the fixture logs, each with its start cut off at each byte of
// its first 40, and near misses.
func readerLines(t *testing.T) [][]byte {
	t.Helper()
	lines := [][]byte{
		nil, []byte("E"), []byte("E:"), []byte("E: "), []byte("E:x"), []byte("_:"), []byte("a.b.C: m"),
		[]byte("a..b: m"), []byte(".a: m"), []byte("a.: m"), []byte("1a: m"), []byte("a.1b: m"), []byte("É: m"),
		[]byte("KeyError: 'x'\n"), []byte("KeyError: a\nb"), []byte("KeyError:\n"), []byte("K\xffy: m"), []byte("Key: \xff"),
		[]byte(`File ""`), []byte(`File "a`), []byte(`  File "a"`), []byte("\t\f\r\n" + `File "a/b.py", line 1`),
		[]byte("\v" + `File "a"`), []byte(`File "é\xff"`), []byte(`file "a"`),
	}
	paths, _ := filepath.Glob("../testdata/logs/*.log")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			for k := 0; k < len(l) && k < 40; k++ {
				lines = append(lines, l[k:])
			}
		}
	}
	return lines
}

func TestSplitExcLineIsExcLineRE(t *testing.T) {
	for _, l := range readerLines(t) {
		sub := excLineRE.FindSubmatchIndex(l)
		class, text, ok := splitExcLine(l)
		if ok != (sub != nil) {
			t.Fatalf("%q: ok %v, regexp %v", l, ok, sub)
		}
		if ok && (class != sub[3] || text != sub[4]) {
			t.Fatalf("%q: class %d text %d, regexp %v", l, class, text, sub)
		}
	}
}

func TestFramePathIsFramePathRE(t *testing.T) {
	for _, l := range readerLines(t) {
		m := framePathRE.FindStringSubmatch(string(l))
		path, ok := framePath(string(l))
		if ok != (m != nil) || ok && path != m[1] {
			t.Fatalf("%q: %q %v, regexp %q", l, path, ok, m)
		}
	}
}
