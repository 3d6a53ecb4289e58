// Package regular reads files that must be regular files: a configuration,
// a pattern pack. A named pipe, a device or a socket in their place is
// refused before it is opened, so nothing blocks on it, and a file larger
// than its limit is refused rather than read without bound.
package regular

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// ErrTooLarge is returned for a file larger than the limit it was read
// with.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the file at path whole, when it is a regular file (after
// symbolic links) of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, st, limit); err != nil {
		return nil, err
	}
	// O_NONBLOCK: if the path became a pipe since the Stat, opening it
	// must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(path, f, limit)
}

// ReadFS is ReadFile for a file of fsys.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	if err := readFS(&buf, fsys, name, limit); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadFSText is ReadFS for a text read as a string: the file's bytes are
// not copied once more to make one.
func ReadFSText(fsys fs.FS, name string, limit int64) (string, error) {
	var b strings.Builder
	err := readFS(&b, fsys, name, limit)
	return b.String(), err
}

// ReadRangeFS reads bytes off to end of a regular file of fsys, of at most
// limit bytes: only those when the file can be read at an offset, as a
// directory's files can, else the whole file, cut.
func ReadRangeFS(fsys fs.FS, name string, off, end int, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(name, st, limit); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if ra, ok := f.(io.ReaderAt); ok {
		buf := make([]byte, end-off)
		if _, err := ra.ReadAt(buf, int64(off)); err != nil && !(errors.Is(err, io.EOF) && end == off) {
			return nil, err
		}
		return buf, nil
	}
	data, err := readOpen(name, f, limit)
	if err != nil {
		return nil, err
	}
	if end > len(data) {
		return nil, io.ErrUnexpectedEOF
	}
	return data[off:end], nil
}

// readFS reads a file of fsys into dst.
func readFS(dst buffer, fsys fs.FS, name string, limit int64) error {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return err
	}
	if err := check(name, st, limit); err != nil {
		return err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return readInto(dst, name, f, limit)
}

// buffer is what a file is read into: a bytes.Buffer or a strings.Builder.
type buffer interface {
	io.Writer
	Grow(n int)
	Len() int
}

// readOpen checks what was opened is still a regular file and reads at
// most limit bytes of it.
func readOpen(name string, f fs.File, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	if err := readInto(&buf, name, f, limit); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readInto is readOpen into dst.
func readInto(dst buffer, name string, f fs.File, limit int64) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := check(name, st, limit); err != nil {
		return err
	}
	// Grown to the file's size: a pack of a hundred megabytes is not
	// copied as it grows.
	dst.Grow(int(min(st.Size(), limit)) + bytes.MinRead)
	if _, err := io.Copy(dst, io.LimitReader(f, limit+1)); err != nil {
		return err
	}
	if int64(dst.Len()) > limit {
		return tooLarge(name, limit)
	}
	return nil
}

// check refuses what is not a regular file, or is larger than limit.
func check(name string, st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("not a regular file (%s)", Kind(st.Mode()))}
	}
	if st.Size() > limit {
		return tooLarge(name, limit)
	}
	return nil
}

func tooLarge(name string, limit int64) error {
	return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than %s", ErrTooLarge, size(limit))}
}

// Kind names what a file mode is: "a directory", "a named pipe".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
