package follow

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// oursTail follows path with Follow, polling every 50 ms besides file
// events, and reads Chunks as a consumer must: by Path, joining a partial
// last line to the next bytes of the same Path unless they come with Break
// (then it is ended with a newline), and handing over only whole lines.
// Bytes of a file rotated away come under a name of their own, which for
// this log starts with its path ("server.log.1", "server.log (deleted)").
func oursTail(polling bool) tailer {
	return func(ctx context.Context, path string, fromStart bool, out func([]byte)) error {
		var mu sync.Mutex
		carry := map[string][]byte{} // a partial last line, by path
		var strange []string         // chunks for a path no rotation of the one followed
		err := Follow(ctx, []string{path}, Options{FromStart: fromStart, Poll: 50 * time.Millisecond, Polling: polling}, func(c Chunk) {
			mu.Lock()
			defer mu.Unlock()
			if !strings.HasPrefix(c.Path, path) && len(strange) < 3 {
				strange = append(strange, c.Path)
			}
			b := carry[c.Path]
			if c.Break && len(b) > 0 {
				out(append(b, '\n'))
				b = b[:0]
			}
			b = append(b, c.Data...)
			if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
				out(b[:i+1])
				b = append(b[:0], b[i+1:]...)
			}
			carry[c.Path] = b
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
