package matcher

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// referenceLines is what every reader must hand on for a stream: each
// line ending in a newline, a line longer than MaxLine cut to its first
// MaxLine bytes, a last line without newline given one.
func referenceLines(stream []byte) []string {
	var out []string
	for len(stream) > 0 {
		line := stream
		if i := bytes.IndexByte(stream, '\n'); i >= 0 {
			line, stream = stream[:i], stream[i+1:]
		} else {
			stream = nil
		}
		if len(line) > MaxLine {
			line = line[:MaxLine]
		}
		out = append(out, string(line)+"\n")
	}
	return out
}

// framedLines runs a stream cut into random pieces through a framer, the
// way Engine.Write and Live do, and cuts what it hands on into lines, each
// cut to MaxLine as the engine matches it.
func framedLines(stream []byte, r *rand.Rand) []string {
	var f framer
	var out []string
	take := func(b []byte) {
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			line := b[:i]
			if len(line) > MaxLine {
				line = line[:MaxLine]
			}
			out = append(out, string(line)+"\n")
			b = b[i+1:]
		}
	}
	for len(stream) > 0 {
		n := min(len(stream), 1+r.IntN(3*MaxLine/2))
		if r.IntN(2) == 0 {
			n = min(len(stream), 1+r.IntN(64))
		}
		head, body, tail := f.frame(stream[:n])
		take(head)
		take(body)
		take(tail)
		stream = stream[n:]
	}
	take(f.end())
	return out
}

// scannedLines runs a stream through readBlocks, the way Scan does.
func scannedLines(stream []byte, r *rand.Rand) []string {
	free := make(chan *job, 1)
	free <- &job{buf: make([]byte, 0, blockSize)}
	var out []string
	err := readBlocks(&randomReader{b: stream, r: r}, free, func(j *job) {
		for _, l := range strings.SplitAfter(string(j.buf), "\n") {
			if l == "" {
				continue
			}
			if len(l) > MaxLine+1 {
				l = l[:MaxLine] + "\n"
			}
			out = append(out, l)
		}
		free <- j
	})
	if err != nil {
		panic(err)
	}
	return out
}

type randomReader struct {
	b []byte
	r *rand.Rand
}

func (rr *randomReader) Read(p []byte) (int, error) {
	if len(rr.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+rr.r.IntN(2*MaxLine))], rr.b)
	rr.b = rr.b[n:]
	return n, nil
}

// Every reader frames a stream the same way, however it is cut: lines
// longer than MaxLine (on their own, spanning pieces, filling a block),
// empty lines, and a last line without newline.
func TestEveryReaderFramesAlike(t *testing.T) {
	long := strings.Repeat("x", MaxLine+10)
	huge := strings.Repeat("y", 5*MaxLine)
	streams := []string{
		"a\nb\nc",
		"a\n\n\nb\n",
		"start\n" + long + "\nafter\n",
		long + "\n" + long,
		"x\n" + huge + "\nend\n",
		strings.Repeat("short line\n", 1000) + huge,
		strings.Repeat("z", MaxLine) + "\n" + strings.Repeat("w", MaxLine+1) + "\n",
	}
	for i, s := range streams {
		want := referenceLines([]byte(s))
		for seed := range uint64(5) {
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			if got := framedLines([]byte(s), r); !equalLines(got, want) {
				t.Errorf("stream %d seed %d: the framer gave %d lines, want %d", i, seed, len(got), len(want))
			}
			if got := scannedLines([]byte(s), r); !equalLines(got, want) {
				t.Errorf("stream %d seed %d: Scan's reader gave %d lines, want %d", i, seed, len(got), len(want))
			}
		}
	}
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
