package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/goleak"
)

// chunkLog gathers what Follow hands out, and its warnings.
type chunkLog struct {
	mu    sync.Mutex
	data  map[string]*strings.Builder
	warns []string
}

func newChunkLog() *chunkLog { return &chunkLog{data: map[string]*strings.Builder{}} }

func (c *chunkLog) out(ch Chunk) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.data[ch.Path]
	if b == nil {
		b = &strings.Builder{}
		c.data[ch.Path] = b
	}
	b.Write(ch.Data)
}

func (c *chunkLog) warn(path string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warns = append(c.warns, filepath.Base(path)+": "+err.Error())
}

func (c *chunkLog) text(path string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.data[path]; b != nil {
		return b.String()
	}
	return ""
}

func (c *chunkLog) warnings() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.warns, "\n")
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// When inotify is not available, because the system's instances or its
// watches have run out, Follow says so once and goes on by polling; it
// never exits.
func TestFollowFallsBackToPolling(t *testing.T) {
	tests := []struct {
		name  string
		setup func()
		warn  string
	}{
		{"no inotify instance left", func() {
			newWatcher = func() (*fsnotify.Watcher, error) {
				return nil, &os.SyscallError{Syscall: "inotify_init1", Err: syscall.EMFILE}
			}
		}, "file events are not available (inotify_init1: too many open files); polling every 20ms instead"},
		{"no inotify watch left", func() {
			addWatch = func(*fsnotify.Watcher, string) error { return syscall.ENOSPC }
		}, "file events are not available (no space left on device); polling every 20ms instead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			saveW, saveA := newWatcher, addWatch
			defer func() { newWatcher, addWatch = saveW, saveA }()
			tt.setup()
			dir := t.TempDir()
			path := filepath.Join(dir, "server.log")
			c := newChunkLog()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- Follow(ctx, []string{path}, Options{Poll: 20 * time.Millisecond, Warn: c.warn}, c.out)
			}()
			eventually(t, "the warning", func() bool { return strings.Contains(c.warnings(), tt.warn) })
			if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the lines", func() bool { return c.text(path) == "one\ntwo\n" })
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(c.warnings(), "not available"); n != 1 {
				t.Errorf("warned %d times, want once:\n%s", n, c.warnings())
			}
		})
	}
}

// A file that cannot be read is reported once, and the others are still
// followed; once it can be read, it is followed too.
func TestFollowKeepsTheOthersWhenOneCannotBeRead(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.log"), filepath.Join(dir, "bad.log")
	if err := os.Symlink(bad, bad); err != nil { // unreadable even for root
		t.Fatal(err)
	}
	c := newChunkLog()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, []string{good, bad}, Options{Poll: 20 * time.Millisecond, Warn: c.warn}, c.out)
	}()
	eventually(t, "the warning", func() bool { return strings.Contains(c.warnings(), "bad.log: stat: too many levels of symbolic links") })
	os.WriteFile(good, []byte("good\n"), 0o644)
	eventually(t, "the good file", func() bool { return c.text(good) == "good\n" })
	time.Sleep(100 * time.Millisecond) // several polls: still one warning
	os.Remove(bad)
	os.WriteFile(bad, []byte("readable now\n"), 0o644)
	eventually(t, "the repaired file", func() bool { return c.text(bad) == "readable now\n" })
	cancel()
	<-done
	if n := strings.Count(c.warnings(), "bad.log"); n != 1 {
		t.Errorf("warned %d times about bad.log, want once:\n%s", n, c.warnings())
	}
}

// Patterns: a directory follows the files in it, a glob those that match,
// including files created later, which are read from their start; files
// already there are read from their end unless FromStart.
func TestFollowPatterns(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	os.Mkdir(logs, 0o755)
	old := filepath.Join(logs, "a.log")
	os.WriteFile(old, []byte("before\n"), 0o644)
	c := newChunkLog()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, []string{logs, filepath.Join(dir, "decode-*.log")}, Options{Poll: 20 * time.Millisecond, Warn: c.warn}, c.out)
	}()
	time.Sleep(50 * time.Millisecond)
	appendFile(t, old, "after\n")
	later := filepath.Join(logs, "b.log")
	os.WriteFile(later, []byte("new file\n"), 0o644)
	glob := filepath.Join(dir, "decode-1.log")
	os.WriteFile(glob, []byte("matched later\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "other.log"), []byte("not followed\n"), 0o644)
	eventually(t, "all three", func() bool {
		return c.text(old) == "after\n" && c.text(later) == "new file\n" && c.text(glob) == "matched later\n"
	})
	cancel()
	<-done
	if s := c.text(filepath.Join(dir, "other.log")); s != "" {
		t.Errorf("followed a file no pattern names: %q", s)
	}
	if err := Follow(context.Background(), []string{"["}, Options{}, c.out); err == nil || !errors.Is(err, filepath.ErrBadPattern) {
		t.Errorf("bad pattern: %v", err)
	}
}

// A directory is followed at any depth, a glob as deep as its pattern
// reaches, ** at any depth; directories made after the start (a pod's, then
// its container's) are found, with file events and by polling alone.
func TestFollowRecursivePatterns(t *testing.T) {
	for _, polling := range []bool{false, true} {
		t.Run(fmt.Sprintf("polling=%v", polling), func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			dir := t.TempDir()
			tree := filepath.Join(dir, "tree")
			pods := filepath.Join(dir, "pods")
			flat := filepath.Join(dir, "flat")
			for _, d := range []string{tree, pods, filepath.Join(flat, "sub")} {
				os.MkdirAll(d, 0o755)
			}
			c := newChunkLog()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			patterns := []string{tree, filepath.Join(pods, "**", "sglang*", "*.log"), filepath.Join(flat, "*.log")}
			go func() {
				done <- Follow(ctx, patterns, Options{Poll: 20 * time.Millisecond, Polling: polling, Warn: c.warn}, c.out)
			}()
			time.Sleep(50 * time.Millisecond)
			deep := filepath.Join(tree, "a", "b", "c.log")
			os.MkdirAll(filepath.Dir(deep), 0o755)
			os.WriteFile(deep, []byte("deep\n"), 0o644)
			pod := filepath.Join(pods, "ns_pod-7_uid", "sglang-server", "0.log")
			os.MkdirAll(filepath.Dir(pod), 0o755)
			os.WriteFile(pod, []byte("pod\n"), 0o644)
			side := filepath.Join(pods, "ns_pod-7_uid", "sidecar", "0.log")
			os.MkdirAll(filepath.Dir(side), 0o755)
			os.WriteFile(side, []byte("sidecar\n"), 0o644)
			below := filepath.Join(flat, "sub", "x.log")
			os.WriteFile(below, []byte("below\n"), 0o644)
			top := filepath.Join(flat, "y.log")
			os.WriteFile(top, []byte("top\n"), 0o644)
			eventually(t, "the deep file, the pod's log and the flat glob's", func() bool {
				return c.text(deep) == "deep\n" && c.text(pod) == "pod\n" && c.text(top) == "top\n"
			})
			appendFile(t, deep, "more\n")
			eventually(t, "more of the deep file", func() bool { return c.text(deep) == "deep\nmore\n" })
			cancel()
			<-done
			if s := c.text(side); s != "" {
				t.Errorf("followed a container the glob does not name: %q", s)
			}
			if s := c.text(below); s != "" {
				t.Errorf("a one-level glob followed a file below it: %q", s)
			}
		})
	}
	if err := Follow(context.Background(), []string{"a/**/[x"}, Options{}, func(Chunk) {}); !errors.Is(err, filepath.ErrBadPattern) {
		t.Errorf("bad ** pattern: %v", err)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(text)
}

// recorder keeps every Chunk handed out, with a copy of its data.
type recorder struct {
	mu     sync.Mutex
	chunks []Chunk
}

func (r *recorder) out(c Chunk) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.Data = bytes.Clone(c.Data)
	r.chunks = append(r.chunks, c)
}

// text is everything handed out for path.
func (r *recorder) text(path string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, c := range r.chunks {
		if c.Path == path {
			b.Write(c.Data)
		}
	}
	return b.String()
}

// find returns the first chunk whose data contains s.
func (r *recorder) find(s string) (Chunk, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.chunks {
		if bytes.Contains(c.Data, []byte(s)) {
			return c, true
		}
	}
	return Chunk{}, false
}

// run runs f in the background; the returned function cancels it and
// waits for it to return.
func run(t *testing.T, f *Follower, out func(Chunk)) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx, out) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
}

// New records where every file ends before it returns: lines written after
// it and before Run (while the caller loads what it needs) are all
// delivered, and what was there before is not.
func TestNewRecordsPositionsBeforeRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	plain, globbed, later := filepath.Join(dir, "server.log"), filepath.Join(dir, "decode-0.log"), filepath.Join(dir, "decode-1.log")
	os.WriteFile(plain, []byte("before\n"), 0o644)
	os.WriteFile(globbed, []byte("before\n"), 0o644)
	f, err := New([]string{plain, filepath.Join(dir, "decode-*.log")}, Options{Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, plain, "one\ntwo\n")
	appendFile(t, globbed, "three\n")
	os.WriteFile(later, []byte("four\n"), 0o644)
	r := &recorder{}
	stop := run(t, f, r.out)
	want := map[string]string{plain: "one\ntwo\n", globbed: "three\n", later: "four\n"}
	eventually(t, "the lines written between New and Run", func() bool {
		for path, text := range want {
			if r.text(path) != text {
				return false
			}
		}
		return true
	})
	stop()
	if err := f.Run(context.Background(), r.out); err == nil {
		t.Error("a second Run did not fail")
	}
}

// A pattern that names nothing yet is told to Notice once, whatever the
// polls that follow; a pattern that names a file is not.
func TestNotices(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(dir string)
		pat    string
		notice string // "" for none; DIR stands for the directory
	}{
		{"missing path", nil, "server.log", "waiting for DIR/server.log to appear"},
		{"missing path in a missing directory", nil, "logs/server.log", "waiting for DIR/logs/server.log to appear"},
		{"glob that matches nothing", nil, "decode-*.log", "no file matches DIR/decode-*.log yet; waiting"},
		{"empty directory", func(dir string) { os.Mkdir(filepath.Join(dir, "logs"), 0o755) }, "logs", "no file in DIR/logs yet; waiting"},
		{"existing path", func(dir string) { os.WriteFile(filepath.Join(dir, "server.log"), nil, 0o644) }, "server.log", ""},
		{"glob that matches", func(dir string) { os.WriteFile(filepath.Join(dir, "decode-0.log"), nil, 0o644) }, "decode-*.log", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(dir)
			}
			pat := filepath.Join(dir, tt.pat)
			var mu sync.Mutex
			var got []string
			notice := func(p, msg string) {
				mu.Lock()
				defer mu.Unlock()
				if p != pat {
					t.Errorf("notice for %q, want %q", p, pat)
				}
				got = append(got, strings.ReplaceAll(msg, dir, "DIR"))
			}
			f, err := New([]string{pat}, Options{Poll: 5 * time.Millisecond, Notice: notice})
			if err != nil {
				t.Fatal(err)
			}
			stop := run(t, f, func(Chunk) {})
			time.Sleep(50 * time.Millisecond) // several polls
			stop()
			var want []string
			if tt.notice != "" {
				want = []string{tt.notice}
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("notices %q, want %q", got, want)
			}
		})
	}
}

// After each kind of rotation the first bytes of the new file come with
// Restart and Break; bytes still written to a file renamed or deleted
// come under its new name with Break and without Restart; and the new
// file's later bytes continue it (neither).
func TestRestartAfterRotation(t *testing.T) {
	tests := []struct {
		name    string
		rotate  func(path string) error
		drained string // the base name the old file's late bytes come under; "" when there is no old file
	}{
		{"copytruncate", func(path string) error {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.WriteFile(path+".1", data, 0o644); err != nil {
				return err
			}
			return os.Truncate(path, 0)
		}, ""},
		{"truncate", func(path string) error { return os.Truncate(path, 0) }, ""},
		{"rename-create", func(path string) error {
			if err := os.Rename(path, path+".1"); err != nil {
				return err
			}
			return os.WriteFile(path, nil, 0o644)
		}, "server.log.1"},
		{"delete-recreate", func(path string) error {
			if err := os.Remove(path); err != nil {
				return err
			}
			return os.WriteFile(path, nil, 0o644)
		}, "server.log (deleted)"},
	}
	for _, tt := range tests {
		for _, polling := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/polling=%v", tt.name, polling), func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				path := filepath.Join(t.TempDir(), "server.log")
				os.WriteFile(path, []byte("a1\n"), 0o644)
				w, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				f, err := New([]string{path}, Options{Poll: 10 * time.Millisecond, Polling: polling})
				if err != nil {
					t.Fatal(err)
				}
				r := &recorder{}
				stop := run(t, f, r.out)
				defer stop()
				w.WriteString("a2\n")
				eventually(t, "a2", func() bool { return r.text(path) == "a2\n" })
				if err := tt.rotate(path); err != nil {
					t.Fatal(err)
				}
				appendFile(t, path, "b1\n")
				eventually(t, "b1", func() bool { _, ok := r.find("b1"); return ok })
				if c, _ := r.find("b1"); c.Path != path || !c.Restart || !c.Break || !strings.HasPrefix(string(c.Data), "b1") {
					t.Errorf("the new file's first chunk: %+v, want Path %s, Restart, Break, from b1", c, path)
				}
				if tt.drained != "" {
					w.WriteString("a3\n")
					eventually(t, "a3", func() bool { _, ok := r.find("a3"); return ok })
					if c, _ := r.find("a3"); filepath.Base(c.Path) != tt.drained || c.Restart || !c.Break {
						t.Errorf("the old file's late bytes: %+v, want Path …/%s, Break, no Restart", c, tt.drained)
					}
				}
				appendFile(t, path, "b2\n")
				eventually(t, "b2", func() bool { _, ok := r.find("b2"); return ok })
				if c, _ := r.find("b2"); c.Path != path || c.Restart || c.Break {
					t.Errorf("the new file's next chunk: %+v, want Path %s, neither Restart nor Break", c, path)
				}
				if c, _ := r.find("a2"); c.Restart || !c.Break {
					t.Errorf("the first chunk, read from the end of the file: %+v, want Break, no Restart", c)
				}
			})
		}
	}
}

// Guards the copytruncate recovery: what was written after the last read
// and before the truncation is read from the copy, ahead of the new bytes.
// Polling once an hour, the follower looks only when Run starts, after
// the whole rotation.
func TestCopyTruncateReadsTheCopy(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "server.log")
	os.WriteFile(path, []byte("a1\n"), 0o644)
	f, err := New([]string{path}, Options{Poll: time.Hour, Polling: true})
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, "a2\na3\n")
	data, _ := os.ReadFile(path)
	os.WriteFile(path+".1", data, 0o644)
	os.Truncate(path, 0)
	appendFile(t, path, "b1\n")
	r := &recorder{}
	stop := run(t, f, r.out)
	eventually(t, "b1", func() bool { _, ok := r.find("b1"); return ok })
	stop()
	if got := r.text(path); got != "a2\na3\nb1\n" {
		t.Errorf("got %q, want the lines from the copy, then the new file's", got)
	}
	if c, _ := r.find("b1"); !c.Restart {
		t.Errorf("the new bytes: %+v, want Restart", c)
	}
}

// Guards the Break after a reopen: the path is recreated while the old
// file ends in a partial line; the new file's bytes must not be joined to
// it.
func TestBreakAfterReopen(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "server.log")
	os.WriteFile(path, nil, 0o644)
	f, err := New([]string{path}, Options{Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	stop := run(t, f, r.out)
	defer stop()
	appendFile(t, path, "a1\nhalf")
	eventually(t, "the partial line", func() bool { return r.text(path) == "a1\nhalf" })
	os.Rename(path, path+".1")
	os.WriteFile(path, []byte("whole\n"), 0o644)
	eventually(t, "the new file", func() bool { _, ok := r.find("whole"); return ok })
	if c, _ := r.find("whole"); !c.Break {
		t.Errorf("the new file's first chunk: %+v, want Break", c)
	}
}

// Cancelling Run while it reads a large file from its start ends it
// within a read or two, not at the end of the file. The consumer takes
// 5 ms a chunk: the whole 200 MiB would take seconds.
func TestRunStopsInTheMiddleOfALargeFile(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "big.log")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(200 << 20); err != nil { // sparse: quick to make and to read
		t.Fatal(err)
	}
	fh.Close()
	f, err := New([]string{path}, Options{FromStart: true, Polling: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var read int64
	var cancelled time.Time
	done := make(chan error, 1)
	go func() {
		done <- f.Run(ctx, func(c Chunk) {
			read += int64(len(c.Data))
			if cancelled.IsZero() {
				cancelled = time.Now()
				cancel()
			}
			time.Sleep(5 * time.Millisecond)
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
	if took := time.Since(cancelled); took > time.Second || read >= 200<<20 {
		t.Errorf("Run returned %v after it was cancelled, having read %d of %d bytes", took, read, 200<<20)
	}
}

// A named pipe among the followed paths, and a link to one in a followed
// directory, are warned about and never opened, so nothing blocks: the
// regular files beside them are followed, from their end as usual.
func TestFollowRefusesNamedPipes(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	good, pipe := filepath.Join(dir, "good.log"), filepath.Join(dir, "pipe.log")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	sub := filepath.Join(dir, "logs")
	os.Mkdir(sub, 0o755)
	if err := os.Symlink(pipe, filepath.Join(sub, "linked.log")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(good, []byte("before\n"), 0o644)
	c := newChunkLog()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, []string{good, pipe, sub}, Options{Poll: 20 * time.Millisecond, Warn: c.warn}, c.out)
	}()
	eventually(t, "the warnings", func() bool {
		w := c.warnings()
		return strings.Contains(w, "pipe.log: not a regular file (a named pipe)") && strings.Contains(w, "linked.log: not a regular file (a named pipe)")
	})
	f, _ := os.OpenFile(good, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("after\n")
	f.Close()
	eventually(t, "the regular file", func() bool { return c.text(good) == "after\n" })
	cancel()
	<-done
}

// Regression: a followed directory deleted and made again is waited for,
// watched anew and followed as a directory, with no warning that it is
// "not a regular file"; so is one named with a trailing slash before it
// exists.
func TestFollowedDirectoryRecreated(t *testing.T) {
	for _, polling := range []bool{false, true} {
		t.Run(fmt.Sprintf("polling=%v", polling), func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			base := t.TempDir()
			dir, later := filepath.Join(base, "logs"), filepath.Join(base, "later")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			c := newChunkLog()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- Follow(ctx, []string{dir, later + "/"}, Options{Poll: 20 * time.Millisecond, Polling: polling, Warn: c.warn}, c.out)
			}()
			time.Sleep(100 * time.Millisecond)
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // several polls without it
			for _, d := range []string{dir, later} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, "server.log"), []byte("back\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range []string{dir, later} {
				eventually(t, "the file in "+d, func() bool { return c.text(filepath.Join(d, "server.log")) == "back\n" })
			}
			time.Sleep(100 * time.Millisecond)
			cancel()
			<-done
			if w := c.warnings(); strings.Contains(w, "not a regular file") {
				t.Errorf("warnings:\n%s", w)
			}
		})
	}
}

// Beyond its budget of open files the follower parks the quiet ones,
// closed with their place kept: what is written to any file is read, also
// to a parked one renamed away before it was opened again, which is found
// by its inode under its new name.
func TestParkedFilesBeyondTheBudget(t *testing.T) {
	for _, polling := range []bool{false, true} {
		t.Run(fmt.Sprintf("polling=%v", polling), func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			dir := t.TempDir()
			const n = 24
			const last = n - 1 // parked from the start
			name := func(i int) string { return filepath.Join(dir, fmt.Sprintf("s%02d.log", i)) }
			for i := range n {
				if err := os.WriteFile(name(i), []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c := newChunkLog()
			// A glob: the name a rotation gives (".log.1") is not followed.
			f, err := New([]string{filepath.Join(dir, "*.log")}, Options{Poll: 20 * time.Millisecond, Polling: polling, Warn: c.warn, maxOpen: 4})
			if err != nil {
				t.Fatal(err)
			}
			if f.open > 4 {
				t.Errorf("%d files open at the start, budget 4", f.open)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- f.Run(ctx, c.out) }()
			time.Sleep(100 * time.Millisecond)
			// A parked file renamed away, written through the writer's
			// descriptor, and a new file at its path.
			w, err := os.OpenFile(name(last), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(name(last), name(last)+".1"); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, w, []byte("late line of the old file\n"))
			w.Close()
			if err := os.WriteFile(name(last), []byte("new file\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for i := n - 2; i >= 0; i-- {
				a, err := os.OpenFile(name(i), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				mustWrite(t, a, []byte(fmt.Sprintf("line %d\n", i)))
				a.Close()
			}
			for i := range n - 1 {
				eventually(t, name(i), func() bool { return c.text(name(i)) == fmt.Sprintf("line %d\n", i) })
			}
			eventually(t, "the late line", func() bool {
				return strings.Contains(c.text(name(last))+c.text(name(last)+".1"), "late line of the old file\n")
			})
			eventually(t, "the new file", func() bool { return strings.Contains(c.text(name(last)), "new file\n") })
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if w := c.warnings(); w != "" {
				t.Errorf("warnings:\n%s", w)
			}
		})
	}
}
