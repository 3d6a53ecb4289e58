package regular

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "config.json")
	if err := os.WriteFile(ok, []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, err string
	}{
		{"a regular file", ok, ""},
		{"a directory", dir, "not a regular file (a directory)"},
		{"a named pipe is refused without blocking", fifo, "not a regular file (a named pipe)"},
		{"a link to a named pipe", link, "not a regular file (a named pipe)"},
		{"larger than the limit", big, "file too large: more than 1 KiB"},
		{"a character device that never ends", "/dev/zero", "not a regular file (a character device)"},
		{"missing", filepath.Join(dir, "nope"), "no such file"},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(tt.path, 1024)
			done <- err
		}()
		select {
		case err := <-done:
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: ReadFile = %v, want %q", tt.name, err, tt.err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ReadFile blocked", tt.name)
		}
	}
	if _, err := ReadFile(big, 1024); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a large file's error is not ErrTooLarge: %v", err)
	}
	if _, err := ReadFS(os.DirFS(dir), "pipe.json", 1024); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadFS of a pipe: %v", err)
	}
	if data, err := ReadFS(os.DirFS(dir), "config.json", 1024); err != nil || string(data) != `{"a": 1}` {
		t.Errorf("ReadFS of a file: %q, %v", data, err)
	}
	if text, err := ReadFSText(os.DirFS(dir), "config.json", 1024); err != nil || text != `{"a": 1}` {
		t.Errorf("ReadFSText of a file: %q, %v", text, err)
	}
	if _, err := ReadRangeFS(os.DirFS(dir), "pipe.json", 0, 1, 1024); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadRangeFS of a pipe: %v", err)
	}
	// Read at an offset from a directory's file, and cut from a whole
	// reading of a file that cannot be.
	for name, fsys := range map[string]fs.FS{"dir": os.DirFS(dir), "no ReadAt": onlyRead{fstest.MapFS{"config.json": {Data: []byte(`{"a": 1}`)}}}} {
		if data, err := ReadRangeFS(fsys, "config.json", 1, 4, 1024); err != nil || string(data) != `"a"` {
			t.Errorf("%s: ReadRangeFS of a file: %q, %v", name, data, err)
		}
		if _, err := ReadRangeFS(fsys, "config.json", 4, 20, 1024); err == nil {
			t.Errorf("%s: ReadRangeFS past the end: no error", name)
		}
	}
}

// onlyRead is a file system whose files cannot be read at an offset.
type onlyRead struct{ fs.FS }

func (o onlyRead) Open(name string) (fs.File, error) {
	f, err := o.FS.Open(name)
	return struct{ fs.File }{f}, err
}
