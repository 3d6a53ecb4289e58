package follow

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A writer finishes the line it was in the middle of in the file it holds,
// then opens the new file at the path and writes there. However late a
// check runs, even between draining the old file and looking at the path,
// the line comes out whole, before the new file's lines.
func TestRotationJoinsTheLineBeforeTheNewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server.log")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	f, err := New([]string{path}, Options{Polling: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got bytes.Buffer
	f.ctx, f.out = context.Background(), func(c Chunk) {
		if c.Path == path {
			got.Write(c.Data)
		} else {
			got.WriteString("[" + filepath.Base(c.Path) + "]" + string(c.Data))
		}
	}
	fl := f.files[path]
	write := func(w *os.File, s string) {
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write(w, "one\ntwo, the first ha")
	f.check(fl)
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	f.check(fl) // the path is gone: the old file is kept to drain
	f.opts.afterDrain = func() {
		f.opts.afterDrain = nil
		write(w, "lf of it\n")
		next, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer next.Close()
		write(next, "three\n")
	}
	f.check(fl)
	f.check(fl)
	if want := "one\ntwo, the first half of it\nthree\n"; got.String() != want {
		t.Errorf("read %q, want %q", got.String(), want)
	}
}
