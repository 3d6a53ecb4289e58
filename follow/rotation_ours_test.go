package follow

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// Regression: rename rotations in the middle of a line. The writer waits
// until the line before has come out, keeps its file open, finishes the line there after the follower has seen the
// rename, and only then opens the new file: every line arrives whole,
// once, in order, none split at the rotation or joined across it.
// TAILFIX_HALF_ROTATIONS=1000 runs that many with file events (about a
// minute) instead of the 150 of a normal run.
func TestRotationHalfWrittenLines(t *testing.T) {
	events := 150
	if n, err := strconv.Atoi(os.Getenv("TAILFIX_HALF_ROTATIONS")); err == nil && n > 0 {
		events = n
	}
	for _, tc := range []struct {
		polling   bool
		rotations int
		pause     time.Duration // for the follower to see each step
	}{
		{polling: false, rotations: events, pause: 15 * time.Millisecond},
		{polling: true, rotations: 25, pause: 70 * time.Millisecond},
	} {
		t.Run(fmt.Sprintf("polling=%v", tc.polling), func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			path := filepath.Join(t.TempDir(), "server.log")
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			k := 2 * tc.rotations
			c := newCollector(k)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- oursTail(tc.polling)(ctx, path, false, c.add) }()
			time.Sleep(settleTime)
			w, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			for n := 1; n <= k; n += 2 {
				mustWrite(t, w, seqLine(n))
				line := seqLine(n + 1)
				mustWrite(t, w, line[:len(line)/2])
				// The follower must have opened this file before it is
				// renamed: a file made, renamed and unlinked by the next
				// rotation while the follower was not scheduled is gone
				// before anyone can open it, which is not what this tests.
				waitFor(drainTimeout, func() bool { return c.hasAll(n) })
				time.Sleep(tc.pause)
				if err := os.Rename(path, path+".1"); err != nil {
					t.Fatal(err)
				}
				time.Sleep(tc.pause)
				mustWrite(t, w, line[len(line)/2:])
				w.Close()
				if w, err = os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
			waitFor(drainTimeout, func() bool { return c.hasAll(k) })
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			data, _ := c.snapshot()
			if r := check(data, k); !r.ok() {
				t.Errorf("%d rotations in the middle of a line: %s", tc.rotations, r.summary("ours", "half-written"))
			}
		})
	}
}

func mustWrite(t *testing.T, w *os.File, b []byte) {
	t.Helper()
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
}

// A file rotated away while the new one stays empty is still read long
// after it went quiet: its writer may log a crash later. Once given up,
// that is said.
func TestRotatedAwayFileKeptWhileTheNewOneIsEmpty(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	path := filepath.Join(dir, "server.log")
	w, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var mu sync.Mutex
	var got strings.Builder
	var warned []string
	opts := Options{Poll: 20 * time.Millisecond, keepIdle: 1500 * time.Millisecond, Warn: func(p string, err error) {
		mu.Lock()
		warned = append(warned, p+": "+err.Error())
		mu.Unlock()
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, []string{path}, opts, func(c Chunk) {
			mu.Lock()
			got.Write(c.Data)
			mu.Unlock()
		})
	}()
	time.Sleep(settleTime)
	mustWrite(t, w, []byte("starting\n"))
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil { // the new, empty file
		t.Fatal(err)
	}
	time.Sleep(6 * 20 * time.Millisecond) // quiet for longer than drainIdle was in polls
	mustWrite(t, w, []byte("torch.OutOfMemoryError: CUDA out of memory.\n"))
	seen := waitFor(time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(got.String(), "CUDA out of memory")
	})
	given := waitFor(3*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(warned) > 0
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Error("the late line of the file rotated away was not read")
	}
	mu.Lock()
	defer mu.Unlock()
	if !given || !strings.Contains(warned[0], "server.log.1: stopped reading it: rotated away and nothing written to it for 1.5s") {
		t.Errorf("giving up is not said: %q", warned)
	}
}
