package matcher

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tailfix/tailfix/patterns"
)

// synthLog writes about size bytes of an sglang-like log: batch lines from
// eight ranks, access lines, and now and then a scheduler traceback.
func synthLog(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for n := 0; b.Len() < size; n++ {
		ts := fmt.Sprintf("2026-08-28 10:%02d:%02d", n/60000%60, n/1000%60)
		switch {
		case n%5000 == 4999:
			fmt.Fprintf(&b, "[%s TP%d] Scheduler hit an exception: Traceback (most recent call last):\n", ts, n%8)
			b.WriteString("  File \"/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py\", line 5191, in run_scheduler_process\n")
			b.WriteString("    scheduler.event_loop_overlap()\n")
			fmt.Fprintf(&b, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %d.00 GiB.\n\n", rng.IntN(8)+1)
		case n%10 == 0:
			fmt.Fprintf(&b, "[%s] INFO:     127.0.0.1:%d - \"POST /generate HTTP/1.1\" 200 OK\n", ts, 40000+rng.IntN(20000))
		case n%3 == 0:
			fmt.Fprintf(&b, "[%s TP%d] Decode batch, #running-req: %d, #token: %d, token usage: 0.%02d, cuda graph: True, gen throughput (token/s): %d.%02d, #queue-req: 0\n",
				ts, n%8, rng.IntN(256), rng.IntN(300000), rng.IntN(100), rng.IntN(9000), rng.IntN(100))
		default:
			fmt.Fprintf(&b, "[%s TP%d] Prefill batch, #new-seq: %d, #new-token: %d, #cached-token: %d, token usage: 0.%02d, #running-req: %d, #queue-req: %d\n",
				ts, n%8, rng.IntN(16), rng.IntN(8192), rng.IntN(8192), rng.IntN(100), rng.IntN(256), rng.IntN(32))
		}
	}
	return b.Bytes()
}

// Scan over blocks in parallel reports exactly what one-line-at-a-time
// feeding reports, whatever the reads look like.
func TestScanAgreesWithWrite(t *testing.T) {
	m := builtinMatcher(t)
	log := synthLog(12 << 20)
	log = append(log, "RuntimeError: CUDA error: out of memory"...) // no final newline
	var want []Occurrence
	e := m.NewEngine("x", func(o Occurrence) { want = append(want, o) })
	for line := range bytes.Lines(log) {
		e.Write(line)
	}
	e.Flush()
	if len(want) < 10 {
		t.Fatalf("only %d occurrences in the synthetic log", len(want))
	}
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(log) },
		"one byte": func() io.Reader { return iotest.HalfReader(iotest.OneByteReader(bytes.NewReader(log[:1<<20]))) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(log)) },
	}
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			var got []Occurrence
			e := m.NewEngine("x", func(o Occurrence) { got = append(got, o) })
			if err := e.Scan(r()); err != nil {
				t.Fatal(err)
			}
			w := want
			if name == "one byte" {
				w = nil
				e2 := m.NewEngine("x", func(o Occurrence) { w = append(w, o) })
				e2.Write(log[:1<<20])
				e2.Flush()
			}
			if brief(got) != brief(w) {
				t.Errorf("Scan found %d occurrences, Write found %d", len(got), len(w))
			}
		})
	}
}

func TestScanReadError(t *testing.T) {
	m := builtinMatcher(t)
	var got []Occurrence
	e := m.NewEngine("x", func(o Occurrence) { got = append(got, o) })
	r := io.MultiReader(strings.NewReader("RuntimeError: CUDA error: out of memory\npartial"), iotest.ErrReader(io.ErrUnexpectedEOF))
	if err := e.Scan(r); err != io.ErrUnexpectedEOF {
		t.Fatalf("Scan error = %v, want %v", err, io.ErrUnexpectedEOF)
	}
	if len(got) != 1 || e.Lines() != 2 {
		t.Errorf("got %d occurrences and %d lines, want 1 and 2", len(got), e.Lines())
	}
}

// Regression: a line longer than a whole block is cut for matching, and the
// lines after it keep their numbers.
func TestScanOverlongLine(t *testing.T) {
	m := builtinMatcher(t)
	log := "a\n" + strings.Repeat("y", blockSize+123) + "\nValueError: after the long line\n"
	var got []Occurrence
	e := m.NewEngine("x", func(o Occurrence) { got = append(got, o) })
	if err := e.Scan(strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Line != 3 || e.Lines() != 3 {
		t.Fatalf("got %s, lines %d", brief(got), e.Lines())
	}
}

func BenchmarkScan(b *testing.B) {
	m := builtinMatcher(b)
	log := synthLog(64 << 20)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		n := 0
		e := m.NewEngine("x", func(Occurrence) { n++ })
		if err := e.Scan(bytes.NewReader(log)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteLine(b *testing.B) {
	m := builtinMatcher(b)
	line := []byte("[2026-08-28 10:15:27 TP0] Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0\n")
	e := m.NewEngine("x", func(Occurrence) {})
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.Write(line)
	}
}

// BenchmarkScanFile scans a log named by TAILFIX_BENCH_LOG, such as the
// 1 GiB one scripts/bench-scan.sh generates; it is skipped without one.
func BenchmarkScanFile(b *testing.B) {
	name := os.Getenv("TAILFIX_BENCH_LOG")
	if name == "" {
		b.Skip("TAILFIX_BENCH_LOG is not set")
	}
	st, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	m := builtinMatcher(b)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		e := m.NewEngine(name, func(Occurrence) {})
		if err := e.Scan(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkLoad is tailfix's start-up: the built-in pack (hand-written and
// generated records) parsed and compiled into the matcher.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		pack, err := patterns.Builtin()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Compile(pack); err != nil {
			b.Fatal(err)
		}
	}
}

// reverseLog lists a log's lines newest first, as a log console's export
// does.
func reverseLog(log string) string {
	ls := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	for i, j := 0, len(ls)-1; i < j; i, j = i+1, j-1 {
		ls[i], ls[j] = ls[j], ls[i]
	}
	return strings.Join(ls, "\n") + "\n"
}

// An export that lists its newest line first is read oldest line first:
// the same occurrences, in the order of the log's clock, each at the lines
// it has in the export.
func TestScanReadsNewestFirstExports(t *testing.T) {
	m := testMatcher(t)
	scan := func(log string) []Occurrence {
		var got []Occurrence
		e := m.NewEngine("x", func(o Occurrence) { got = append(got, o) })
		if err := e.Scan(strings.NewReader(log)); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i].Line, got[i].EndLine = e.InputLines(got[i].Line, got[i].EndLine)
		}
		return got
	}
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "[2026-08-28 10:00:%02d TP0] Decode batch, #running-req: %d\n", i, i)
	}
	b.WriteString(mooncakeChain)
	forward := b.String()
	n := int64(strings.Count(forward, "\n"))
	want := scan(forward)
	if len(want) == 0 {
		t.Fatal("the log in order has no occurrence")
	}
	for i := range want {
		want[i].Line, want[i].EndLine = n+1-want[i].EndLine, n+1-want[i].Line
	}
	if got := scan(reverseLog(forward)); brief(got) != brief(want) {
		t.Errorf("newest first:\n%s\nwant, in the export's lines:\n%s", brief(got), brief(want))
	}
}

func TestNewestFirst(t *testing.T) {
	stamped := func(secs ...int) string {
		var b strings.Builder
		for _, s := range secs {
			fmt.Fprintf(&b, "[2026-08-28 10:00:%02d TP0] Decode batch\n", s)
		}
		return b.String()
	}
	millis := func(secs ...int) string {
		var b strings.Builder
		for _, s := range secs {
			fmt.Fprintf(&b, "[2026-08-28 10:00:%02d.500 TP1] Prefill batch\n", s)
		}
		return b.String()
	}
	interleave := func(a, b string) string {
		as, bs := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
		var out strings.Builder
		for i := range as {
			out.WriteString(as[i])
			if i < len(bs) {
				out.WriteString(bs[i])
			}
		}
		return out.String()
	}
	tb := "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n    g()\nKeyError: 'k'\n"
	// A log console's export of a cut traceback, without its labels: the
	// severity word then the time, and no head to tell the order.
	exported := func(nanos ...int) string {
		var b strings.Builder
		for i, n := range nanos {
			fmt.Fprintf(&b, "ERROR 2026-08-28T10:00:01.%09dZ   File \"m.py\", line %d, in load\n", n, i+1)
		}
		return b.String()
	}
	tests := []struct {
		name string
		log  string
		want bool
	}{
		{"times going forward", stamped(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), false},
		{"times going back", stamped(10, 9, 8, 7, 6, 5, 4, 3, 2, 1), true},
		{"too few times to tell", stamped(5, 4, 3), false},
		{"ranks a second apart, mostly forward", stamped(1, 3, 2, 4, 6, 5, 7, 9, 8, 10, 12, 11), false},
		{"a traceback in order", tb, false},
		{"a traceback upside down", reverseLog(tb), true},
		{"forward with a rank a second behind now and then", stamped(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15, 16, 18, 17, 19, 20, 22, 21, 23, 24, 26, 25, 27, 28, 30, 29, 31, 32, 34, 33, 35), false},
		{"two formats interleaved, each going back", interleave(stamped(20, 18, 16, 14, 12, 10, 8, 6, 4, 2), millis(19, 17, 15, 13, 11, 9, 7, 5, 3, 1)), true},
		{"two formats interleaved, each going forward", interleave(stamped(1, 3, 5, 7, 9, 11, 13, 15, 17, 19), millis(2, 4, 6, 8, 10, 12, 14, 16, 18, 20)), false},
		{"an export without labels, newest first", exported(900, 800, 700, 600, 500, 400, 300, 200, 100, 50), true},
		{"an export without labels, oldest first", exported(50, 100, 200, 300, 400, 500, 600, 700, 800, 900), false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		if got := newestFirst([]byte(tt.log)); got != tt.want {
			t.Errorf("%s: newestFirst = %v, want %v", tt.name, got, tt.want)
		}
	}
}
