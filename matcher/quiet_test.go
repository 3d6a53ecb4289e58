package matcher

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// quietLog is lines of the kinds a healthy server repeats, each followed
// later by a line of the same shape, numbers changed, that does hold a
// needle: a server error in the access log, a glog error after info
// lines, an errno a record names, a CUDA error code.
func quietLog() []byte {
	var b strings.Builder
	for i := range 300 {
		status := 200
		if i%97 == 96 {
			status = 500
		}
		fmt.Fprintf(&b, "[2026-11-29 10:%02d:%02d TP%d] Decode batch. #running-req: %d, #token: %d, token usage: 0.%02d, gen throughput (token/s): %d.%02d\n",
			i/60%60, i%60, i%8, i, 1000+i*7, i%100, 30+i%50, i%100)
		fmt.Fprintf(&b, "[2026-11-29 10:%02d:%02d] INFO:     127.0.0.1:%d - \"POST /generate HTTP/1.1\" %d OK\n", i/60%60, i%60, 40000+i, status)
		glog := "I"
		if i%89 == 88 {
			glog = "E"
		}
		fmt.Fprintf(&b, "%s%04d 16:34:%02d.%06d 217200 transfer_engine.cpp:%d] Transfer engine idle for %d ms\n", glog, 1100+i%30, i%60, i*31, 300+i%9, i)
		fmt.Fprintf(&b, "[2026-11-29 10:%02d:%02d TP0] bind to port %d: [Errno %d] waiting\n", i/60%60, i%60, 30000+i, 97+i%3)
		fmt.Fprintf(&b, "[2026-11-29 10:%02d:%02d TP0] worker %d: cuda status %d\n", i/60%60, i%60, i, i%3)
	}
	return []byte(b.String())
}

// fixtureLogs is the project's log fixtures, one after another.
func fixtureLogs(t testing.TB) []byte {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "logs", "*.log"))
	if err != nil || len(paths) == 0 {
		t.Fatal("no log fixtures")
	}
	var all []byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data...)
		if len(all) > 0 && all[len(all)-1] != '\n' {
			all = append(all, '\n')
		}
	}
	return all
}

// quietDiff fails when the candidates of each block, read in turn with
// one memo, are not those it has without one.
func quietDiff(t testing.TB, m *Matcher, blocks ...[]byte) *quietShapes {
	t.Helper()
	q := &quietShapes{}
	for i, block := range blocks {
		want, _ := m.candidates(block, nil, nil)
		got, _ := m.candidatesQuiet(block, nil, nil, q)
		if !slices.Equal(got, want) {
			for k := range min(len(got), len(want)) {
				if got[k] != want[k] {
					t.Fatalf("block %d: candidate %d is %+v (line %q), want %+v (line %q)", i, k,
						got[k], lineAt(block, got[k].start), want[k], lineAt(block, want[k].start))
				}
			}
			t.Fatalf("block %d: %d candidates, want %d", i, len(got), len(want))
		}
	}
	return q
}

func lineAt(block []byte, start int) []byte {
	return block[start : start+lineLen(block[start:])]
}

// Lines not searched because their shape is known to be quiet change
// nothing the automaton proposes: in the fixtures read twice over, and in
// lines whose numbers make the difference between a needle and none.
func TestQuietShapesChangeNoCandidate(t *testing.T) {
	m := builtinMatcher(t)
	if m.noQuiet {
		t.Fatal("the built-in pack remembers no quiet shape")
	}
	logs, quiet := fixtureLogs(t), quietLog()
	q := quietDiff(t, m, quiet, quiet, logs, logs, quiet)
	if q.quiet == 0 {
		t.Fatal("no line was skipped")
	}
	// Each line alone after the one before it, as a follower's blocks
	// come.
	var lines [][]byte
	for off := 0; off < len(quiet); {
		end := off + lineLen(quiet[off:]) + 1
		lines = append(lines, append([]byte("\n"), quiet[off:end]...))
		off = end
	}
	quietDiff(t, m, lines...)
}

// The lines of a quiet shape that differ only in a region a needle with a
// digit may hold are told apart: an access log's 200 from its 500, after
// many 200s.
func TestQuietShapeRegions(t *testing.T) {
	m := builtinMatcher(t)
	ok := []byte("[2026-11-29 10:00:00] INFO:     127.0.0.1:40001 - \"POST /generate HTTP/1.1\" 200 OK\n")
	bad := bytes.Replace(ok, []byte("\" 200"), []byte("\" 503"), 1)
	block := append(append(bytes.Repeat(ok, 50), bad...), ok...)
	block = append([]byte("first\n"), block...)
	want, _ := m.candidates(block, nil, nil)
	if len(want) == 0 {
		t.Fatal("no record proposes the 503")
	}
	q := quietDiff(t, m, block)
	// A shape is learnt when seen twice; the 200s after that are skipped.
	if q.quiet < 48 {
		t.Fatalf("%d lines skipped, want the 200s", q.quiet)
	}
}

// A memo whose lines are rarely quiet rests: it stops masking lines for a
// while, and what is proposed stays the same.
func TestQuietShapesRest(t *testing.T) {
	m := builtinMatcher(t)
	var b strings.Builder
	for i := range quietTally + 10 {
		fmt.Fprintf(&b, "request %x answered by %s\n", i*2654435761, strings.Repeat(string(rune('a'+i%26)), i%7+1))
	}
	q := quietDiff(t, m, []byte(b.String()))
	if q.rest == 0 {
		t.Fatalf("the memo does not rest after %d lines of which %d were quiet", quietTally, q.quiet)
	}
}

// A needle that would span two lines leaves no line skipped.
func TestQuietShapesNeedleAcrossLines(t *testing.T) {
	m := &Matcher{needles: [][]byte{[]byte("Error:\nValue")}}
	if err := m.quietSetup(); err != nil || !m.noQuiet {
		t.Fatalf("noQuiet %v, err %v", m.noQuiet, err)
	}
	m = &Matcher{needles: [][]byte{[]byte("\nE0"), []byte("Error:\n")}}
	if err := m.quietSetup(); err != nil || m.noQuiet || m.quietMask['7'] == '7' || m.quietMask['E'] != 'E' {
		t.Fatalf("noQuiet %v, err %v", m.noQuiet, err)
	}
}

func FuzzQuietShapes(f *testing.F) {
	m := builtinMatcher(f)
	for _, l := range strings.Split(string(quietLog()), "\n")[:20] {
		f.Add(l, 3)
	}
	f.Add("E0423 16:34:48.911491 217200 client.cpp:347] Transfer failed", 1)
	f.Add("OSError: [Errno 98] Address already in use", 2)
	f.Fuzz(func(t *testing.T, line string, seed int) {
		if strings.Contains(line, "\n") || len(line) > 2*maxQuietLine {
			return
		}
		// The line, and the line with its digits turned, several times.
		var b bytes.Buffer
		b.WriteString("first\n")
		for k := range 4 {
			for _, c := range []byte(line) {
				if c >= '0' && c <= '9' {
					c = '0' + byte((int(c-'0')+k*seed)%10+10)%10
				}
				b.WriteByte(c)
			}
			b.WriteByte('\n')
		}
		block := b.Bytes()
		quietDiff(t, m, block, block)
	})
}
