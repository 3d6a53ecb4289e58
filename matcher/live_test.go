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
		l := m.NewEngine("x", func(o Occurrence) { got = append(got, o) }).Live(workers, 0)
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

// An event left open when the input goes quiet is reported after the idle
// time, before the input ends; the partial line after it is kept.
func TestLiveClosesEventsWhenIdle(t *testing.T) {
	m := testMatcher(t)
	var mu sync.Mutex
	var got []Occurrence
	l := m.NewEngine("x", func(o Occurrence) {
		mu.Lock()
		got = append(got, o)
		mu.Unlock()
	}).Live(2, 20*time.Millisecond)
	l.Write([]byte("ok\nRuntimeError: CUDA error: out of memory\npartial Runtime"))
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	l.Write([]byte("Error: CUDA error: out of memory\n"))
	l.Close()
	if want := "t/oom 2-2 rank=\"\" exc=\"RuntimeError\" msg=\"CUDA error: out of memory\"\n" +
		"t/oom 3-3 rank=\"\" exc=\"\" msg=\"partial RuntimeError: CUDA error: out of memory\"\n"; brief(got) != want {
		t.Fatalf("got:\n%swant:\n%s", brief(got), want)
	}
}

// Break ends a partial line: bytes after it start a new line.
func TestLiveBreak(t *testing.T) {
	m := testMatcher(t)
	var got []Occurrence
	l := m.NewEngine("x", func(o Occurrence) { got = append(got, o) }).Live(1, 0)
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
	l := m.NewEngine("x", func(o Occurrence) { got = append(got, o) }).Live(2, 0)
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
