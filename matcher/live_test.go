package matcher

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"
)

// Live reports what Scan reports, however the input is cut.
func TestLiveAgreesWithScan(t *testing.T) {
	m := builtinMatcher(t)
	log := synthLog(4 << 20)
	var want []Occurrence
	e := m.NewEngine("x", func(o Occurrence) { want = append(want, o) })
	if err := e.Scan(bytes.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		var got []Occurrence
		l := m.NewEngine("x", func(o Occurrence) { got = append(got, o) }).Live(workers, nil)
		r := rand.New(rand.NewPCG(1, uint64(workers)))
		for p := log; len(p) > 0; {
			n := min(len(p), 1+r.IntN(70000))
			l.Write(p[:n])
			p = p[n:]
		}
		l.Close()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("workers=%d: Live reported %d occurrences, Scan %d", workers, len(got), len(want))
		}
	}
}

// A pause in the input ends no event: an open event is only looked at,
// through a tick and Peek, and the lines after the pause still join it.
func TestLiveTicksWhenQuietAndEndsNothing(t *testing.T) {
	m := testMatcher(t)
	var mu sync.Mutex
	var got, peeked []Occurrence
	var e *Engine
	e = m.NewEngine("x", func(o Occurrence) {
		mu.Lock()
		got = append(got, o)
		mu.Unlock()
	})
	l := e.Live(2, func(quiet time.Duration) time.Duration {
		if quiet == 0 {
			return 10 * time.Millisecond
		}
		mu.Lock()
		defer mu.Unlock()
		e.Peek(func(o Occurrence, settled bool) { peeked = append(peeked, o) })
		return 0
	})
	l.Write([]byte("ok\nTraceback (most recent call last):\n  File \"x.py\", line 1, in f\n"))
	waitFor := func(cond func() bool) {
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("timed out")
			}
		}
	}
	waitFor(func() bool { mu.Lock(); defer mu.Unlock(); return len(peeked) > 0 })
	mu.Lock()
	if len(got) != 0 || !peeked[0].Partial || peeked[0].Line != 2 {
		t.Errorf("after the pause: emitted %d, peeked %s", len(got), brief(peeked))
	}
	mu.Unlock()
	l.Write([]byte("RuntimeError: CUDA error: out of memory\n"))
	l.Close()
	if want := "t/oom 2-4 rank=\"\" exc=\"RuntimeError\" msg=\"CUDA error: out of memory\"\n"; brief(got) != want {
		t.Fatalf("got:\n%swant:\n%s", brief(got), want)
	}
}

// Restart counts lines from 1 again, after what came before it.
func TestLiveRestart(t *testing.T) {
	m := testMatcher(t)
	var got []Occurrence
	l := m.NewEngine("x", func(o Occurrence) { got = append(got, o) }).Live(2, nil)
	l.Write([]byte("a\nb\nRuntimeError: CUDA error: out of memory\nhalf"))
	l.Restart()
	l.Write([]byte("RuntimeError: CUDA error: out of memory\n"))
	l.Close()
	if len(got) != 2 || got[0].Line != 3 || got[1].Line != 1 {
		t.Fatalf("got %s", brief(got))
	}
}

// Break ends a partial line: bytes after it start a new line.
func TestLiveBreak(t *testing.T) {
	m := testMatcher(t)
	var got []Occurrence
	l := m.NewEngine("x", func(o Occurrence) { got = append(got, o) }).Live(1, nil)
	l.Write([]byte("old file's last words"))
	l.Break()
	l.Write([]byte("RuntimeError: CUDA error: out of memory\n"))
	l.Close()
	if len(got) != 1 || got[0].Line != 2 || got[0].ID != "t/oom" {
		t.Fatalf("got %s", brief(got))
	}
}

// A line longer than MaxLine is matched on its start, as Scan does, and
// what follows it is read.
func TestLiveOverlongLine(t *testing.T) {
	m := testMatcher(t)
	var got []Occurrence
	l := m.NewEngine("x", func(o Occurrence) { got = append(got, o) }).Live(2, nil)
	l.Write([]byte("RuntimeError: CUDA error: out of memory "))
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for range 3 * MaxLine / len(chunk) {
		l.Write(chunk)
	}
	l.Write([]byte("\nok\nValueError: after\n"))
	l.Close()
	if len(got) != 2 || got[0].ID != "t/oom" || got[1].Line != 3 {
		t.Fatalf("got %d occurrences: %s", len(got), brief(got)[:min(200, len(brief(got)))])
	}
}
