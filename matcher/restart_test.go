package matcher

import "testing"

// Restart ends the partial line and the open event where they are, and
// numbers what follows from line 1; Lines still counts every line.
func TestEngineRestart(t *testing.T) {
	m := testMatcher(t)
	var got []Occurrence
	e := m.NewEngine("x.log", func(o Occurrence) { got = append(got, o) })
	e.Write([]byte("one\ntwo\ntorch.OutOfMemoryError: CUDA out of memory. Tried"))
	e.Restart()
	e.Write([]byte(" to allocate\ntorch.OutOfMemoryError: CUDA out of memory.\n"))
	e.Flush()
	if want := "t/oom 3-3 rank=\"\" exc=\"torch.OutOfMemoryError\" msg=\"CUDA out of memory. Tried\"\n" +
		"t/oom 2-2 rank=\"\" exc=\"torch.OutOfMemoryError\" msg=\"CUDA out of memory.\"\n"; brief(got) != want {
		t.Errorf("got\n%swant\n%s", brief(got), want)
	}
	if n := e.Lines(); n != 5 {
		t.Errorf("Lines() = %d, want 5", n)
	}
}
