package follow

import (
	"context"
	"errors"
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

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(text)
}
