package follow

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// oursTail follows path with Follow, polling every 50 ms besides file
// events. A Break starts a new line: a partial line before it is ended with
// a newline, as a reader of Chunks must do.
func oursTail(polling bool) tailer {
	return func(ctx context.Context, path string, fromStart bool, out func([]byte)) error {
		var mu sync.Mutex
		last := map[string]byte{} // the last byte handed over, by path
		var strange []string      // chunks for a path other than the one followed
		err := Follow(ctx, []string{path}, Options{FromStart: fromStart, Poll: 50 * time.Millisecond, Polling: polling}, func(c Chunk) {
			mu.Lock()
			defer mu.Unlock()
			if c.Path != path && len(strange) < 3 {
				strange = append(strange, c.Path)
			}
			if b, ok := last[c.Path]; c.Break && ok && b != '\n' {
				out([]byte{'\n'})
				last[c.Path] = '\n'
			}
			if len(c.Data) > 0 {
				out(c.Data)
				last[c.Path] = c.Data[len(c.Data)-1]
			}
		})
		mu.Lock()
		defer mu.Unlock()
		if err == nil && len(strange) > 0 {
			err = fmt.Errorf("chunks for paths other than %s: %q", path, strange)
		}
		return err
	}
}

// TestRotationOurs runs the rotation scenarios against Follow; any line
// lost, repeated, out of order or not written by the writer fails.
func TestRotationOurs(t *testing.T) {
	testRotationOurs(t, "ours", false)
}

// TestRotationOursPolling runs them with file events off (Options.Polling),
// as when the system's inotify watches have run out: changes are seen only
// every 50 ms, which is what copytruncate-fast-write is about.
func TestRotationOursPolling(t *testing.T) {
	testRotationOurs(t, "ours-polling", true)
}

func testRotationOurs(t *testing.T, impl string, polling bool) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			o := runScenario(t, oursTail(polling), sc)
			t.Logf("%s", o.res.summary(impl, sc.name))
			t.Logf("%s %s outcome: %s", impl, sc.name, o.describe())
			if !o.res.ok() || !o.gotAll || o.hung || o.tailerErr != nil {
				t.Errorf("%s: %s", sc.about, o.describe())
			}
		})
	}
}
