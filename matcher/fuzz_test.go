package matcher

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// realShapedSeeds returns the project's fixture logs, whole, for fuzzing
// the event assembler on the shapes real logs have.
func realShapedSeeds(f *testing.F) [][]byte {
	f.Helper()
	paths, err := filepath.Glob("../testdata/logs/*.log")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no fixture logs: %v", err)
	}
	var seeds [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzEngine feeds a log to the engine in two ways: whole through Scan,
// and split at a point the fuzzer picks through Write. Both must report the
// same occurrences, each inside the log's lines; an export that lists its
// newest line first, which Scan reads the other way round, need only stay
// inside its lines.
func FuzzEngine(f *testing.F) {
	for _, s := range realShapedSeeds(f) {
		f.Add(s, uint16(len(s)/3))
	}
	for _, s := range headerShapes {
		f.Add([]byte(s.log), uint16(len(s.log)/2))
	}
	for _, s := range ipythonLogs {
		f.Add([]byte(s.log), uint16(len(s.log)/2))
	}
	m := builtinMatcher(f)
	f.Fuzz(func(t *testing.T, log []byte, split uint16) {
		var scanned, written []Occurrence
		e := m.NewEngine("x", func(o Occurrence) { scanned = append(scanned, o) })
		if err := e.Scan(bytes.NewReader(log)); err != nil {
			t.Fatal(err)
		}
		lines := e.Lines()
		w := m.NewEngine("x", func(o Occurrence) { written = append(written, o) })
		cut := min(int(split), len(log))
		w.Write(log[:cut])
		w.Write(log[cut:])
		w.Flush()
		for _, o := range scanned {
			if o.Line < 1 || o.EndLine < o.Line || o.EndLine > lines {
				t.Fatalf("occurrence %s outside lines 1-%d", brief([]Occurrence{o}), lines)
			}
		}
		if newestFirst(log[:min(len(log), sniffSize)]) {
			// Scan reads a newest-first export oldest line first, Write
			// as it comes: two readings that need not agree (see
			// TestScanReadsNewestFirstExports for what Scan must find).
			return
		}
		if !reflect.DeepEqual(scanned, written) {
			t.Fatalf("Scan and Write disagree:\n%s\nvs\n%s", brief(scanned), brief(written))
		}
	})
}

// FuzzParseLine takes lines of the fixture logs apart: the message is
// always the end of the line, the stream a part of it, and parsing never
// panics.
func FuzzParseLine(f *testing.F) {
	for _, s := range realShapedSeeds(f) {
		sc := bufio.NewScanner(bytes.NewReader(s))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.Add(bytes.Clone(sc.Bytes()))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		norm := Normalize(nil, raw)
		l := ParseLine(norm)
		if !bytes.HasSuffix(norm, l.Msg) {
			t.Fatalf("message %q is not the end of %q", l.Msg, norm)
		}
		if len(l.Stream) > 0 && !bytes.Contains(norm, l.Stream) {
			t.Fatalf("stream %q is not part of %q", l.Stream, norm)
		}
	})
}
