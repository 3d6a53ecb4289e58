package follow

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsnotify/fsnotify"

	"github.com/tailfix/tailfix/internal/regular"
)

// Follow follows the files named by patterns until ctx is done, and hands
// what they receive to out, from one goroutine: New, then Run.
func Follow(ctx context.Context, patterns []string, opts Options, out func(Chunk)) error {
	f, err := New(patterns, opts)
	if err != nil {
		return err
	}
	return f.Run(ctx, out)
}

// Follower follows the files named by a set of patterns. A pattern is a
// file path (which need not exist yet), a glob (** reaches any depth:
// /var/log/pods/**/sglang*/*.log), or a directory (the files in it and
// in its directories).
//
// It keeps reading through rotation: a file renamed away or deleted is
// drained while it still receives data; a truncated file is read again from
// its start, and what was written just before a copytruncate rotation is
// read from the copy. File events come from inotify; every file is also
// checked each Poll interval, and when file events are not available (the
// system's inotify watches ran out) polling is all there is, with a
// warning.
type Follower struct {
	opts     Options
	ctx      context.Context
	out      func(Chunk)
	patterns []string
	files    map[string]*file
	w        *fsnotify.Watcher
	dirs     map[string]bool // directories watched
	// dirPatterns are the patterns that name a directory: seen as one, or
	// written with a trailing slash. One that is gone is waited for.
	dirPatterns map[string]bool
	// listed is each directory's modification time when it was listed:
	// one whose time has not changed since holds the same names. relist
	// asks for every directory to be listed anyway.
	listed map[string]time.Time
	relist bool
	lists  map[string]listing // what each directory held when last read
	// list is the followed files in the order they were found; each poll
	// checks the busy ones and the next share of the rest from cursor on.
	list   []*file
	cursor int
	ticks  int
	// open is how many files are open, maxOpen how many may be: files
	// beyond it are parked, closed with their place kept, the longest
	// quiet first, and opened again when they change.
	open, maxOpen int
	buf           []byte
	ran           bool
	// followed counts the files followed, for Files.
	followed atomic.Int64
}

// Files returns how many files the Follower follows. It is safe to call
// while Run runs.
func (f *Follower) Files() int { return int(f.followed.Load()) }

// readSize bounds one read, so that a large file read from its start is
// read in steps between which cancellation is seen.
const readSize = 256 << 10

// New finds the files the patterns name now and records where each ends,
// before it returns: what is written to them afterwards is read by Run,
// even if Run is called much later. Unless opts.FromStart, what they held
// before is skipped; files that appear later are read from their
// beginning. A pattern that names nothing yet is told to opts.Notice. New
// returns an error for a pattern that is not valid. The Follower holds
// open files and a watcher until Run returns or Close is called.
func New(patterns []string, opts Options) (*Follower, error) {
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	if opts.Warn == nil {
		opts.Warn = func(string, error) {}
	}
	if opts.Notice == nil {
		opts.Notice = func(string, string) {}
	}
	for _, p := range patterns {
		if !doublestar.ValidatePathPattern(p) {
			return nil, fmt.Errorf("pattern %q: %w", p, filepath.ErrBadPattern)
		}
	}
	f := &Follower{opts: opts, ctx: context.Background(), patterns: patterns, files: map[string]*file{},
		buf: make([]byte, readSize), dirs: map[string]bool{}, dirPatterns: map[string]bool{}, listed: map[string]time.Time{},
		lists: map[string]listing{}}
	for _, p := range patterns {
		if strings.HasSuffix(p, "/") {
			f.dirPatterns[p] = true
		}
	}
	f.maxOpen = cmp.Or(opts.maxOpen, openBudget())
	if !opts.Polling {
		w, err := newWatcher()
		if err != nil {
			f.fallBack("", err)
		} else {
			f.w = w
		}
	}
	f.match(true)
	return f, nil
}

// errRan is returned by Run when it is called a second time.
var errRan = errors.New("follow: Run called twice")

// Run reads the files until ctx is done and hands what they receive to
// out, from the calling goroutine; then it releases what the Follower
// holds. It returns nil when ctx is done; called a second time, it returns
// an error at once.
func (f *Follower) Run(ctx context.Context, out func(Chunk)) error {
	if f.ran {
		return errRan
	}
	f.ran = true
	defer f.Close()
	f.ctx, f.out = ctx, out
	f.match(false)
	f.checkAll(true)

	tick := time.NewTicker(f.opts.Poll)
	defer tick.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if f.w != nil {
		events, errs = f.w.Events, f.w.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			f.event(ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// An overflowed event queue loses events: check everything.
			f.opts.Warn("", fmt.Errorf("file events: %w", err))
			f.relist = true
			f.match(false)
			f.checkAll(true)
		case <-tick.C:
			f.ticks++
			f.match(false)
			f.checkAll(false)
		}
		f.parkQuiet()
		if f.w == nil && events != nil {
			events, errs = nil, nil // fell back to polling
		}
	}
}

// newWatcher makes the inotify watcher and addWatch adds a directory to
// it; tests replace them to see how Follow copes when the system's inotify
// instances or watches have run out.
var (
	newWatcher = fsnotify.NewWatcher
	addWatch   = (*fsnotify.Watcher).Add
)

// file is one followed path and what is open of it.
type file struct {
	path  string
	cur   *open     // the file now at path, or nil
	old   []*open   // files rotated away, drained while they still grow
	brk   bool      // the next data does not continue the previous
	warns string    // the last warning, so that each is said once
	seq   uint64    // chunks handed out under path, to tell whether any came between
	seen  time.Time // when data was last handed out under path
}

// open is one opened file: an inode and how far it has been read.
type open struct {
	f    *os.File
	id   fileID
	off  int64
	tail []byte    // the last bytes read before off
	last time.Time // when it last gave data, for draining
	// Once rotated away: the name its bytes are handed out under, and
	// whether none has been yet.
	name string
	brk  bool
	// partial is set while the last byte handed out is not a newline.
	// A file rotated away in the middle of a line finishes that line
	// under the path (join), unless the path handed out other bytes since
	// (joinSeq): the writer completes a line in the file it holds open.
	partial bool
	join    bool
	joinSeq uint64
}

type fileID struct{ dev, ino uint64 }

// tailKeep is how many bytes before the offset are kept to notice a
// truncation the file has already grown back past.
const tailKeep = 64

// drainIdle is how long a file rotated away is still read after its last
// data, once the new file has data of its own; keepIdle how long while
// the new file has none, the writer perhaps still writing to the old one
// (a crash it logs late must not be lost). Giving up on it is said.
const (
	drainIdle = 5 * time.Second
	keepIdle  = 10 * time.Minute
)

// Close releases the open files and the watcher. Run does it when it
// returns; Close is for a Follower that is not run after all. It always
// returns nil.
func (f *Follower) Close() error {
	if f.w != nil {
		f.w.Close()
		f.w = nil
	}
	for _, fl := range f.files {
		if fl.cur != nil && fl.cur.f != nil {
			f.closeFile(fl.cur)
		}
		fl.cur = nil
		for _, o := range fl.old {
			f.closeFile(o)
		}
		fl.old = nil
	}
	return nil
}

// fallBack turns file events off and says so.
func (f *Follower) fallBack(path string, err error) {
	if f.w != nil {
		f.w.Close()
		f.w = nil
	}
	f.opts.Polling = true
	f.opts.Warn(path, fmt.Errorf("file events are not available (%w); polling every %v instead", err, f.opts.Poll))
}

// watch adds a directory to the watcher.
func (f *Follower) watch(dir string) {
	if f.w == nil || f.dirs[dir] {
		return
	}
	if err := addWatch(f.w, dir); err != nil {
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
			f.fallBack(dir, err)
			return
		}
		if !errors.Is(err, fs.ErrNotExist) {
			f.opts.Warn(dir, fmt.Errorf("watch: %w", err))
		}
		return // checked by polling until it exists
	}
	f.dirs[dir] = true
}

// match finds the files the patterns name now. Files found at the start
// are read from their end unless FromStart; files found later from their
// beginning. At the start, a pattern that names nothing is told to Notice.
func (f *Follower) match(start bool) {
	for _, p := range f.patterns {
		var paths []string
		add := func(path string) { paths = append(paths, path) }
		switch st, err := os.Stat(p); {
		case err == nil && st.IsDir():
			f.dirPatterns[p] = true
			f.walk(p, maxDepth, add)
			if start && len(paths) == 0 {
				f.opts.Notice(p, fmt.Sprintf("no file in %s yet; waiting", p))
			}
		case hasMeta(p):
			base, rest := doublestar.SplitPattern(filepath.ToSlash(p))
			depth := strings.Count(rest, "/")
			if strings.Contains(rest, "**") {
				depth = maxDepth
			}
			base = filepath.FromSlash(base)
			if !f.walk(base, depth, func(path string) {
				if ok, _ := doublestar.PathMatch(p, path); ok {
					add(path)
				}
			}) {
				f.watch(filepath.Dir(base)) // wait for it to appear
			}
			if start && len(paths) == 0 {
				f.opts.Notice(p, fmt.Sprintf("no file matches %s yet; waiting", p))
			}
		case f.dirPatterns[p]:
			// A followed directory that is gone: wait for it to come
			// back, and watch it anew then. Its files say they are gone.
			f.forget(p)
			f.watch(filepath.Dir(p))
			if start {
				f.opts.Notice(p, fmt.Sprintf("waiting for %s to appear", p))
			}
		default:
			f.watch(filepath.Dir(p))
			paths = []string{p}
			if start && errors.Is(err, fs.ErrNotExist) {
				f.opts.Notice(p, fmt.Sprintf("waiting for %s to appear", p))
			}
		}
		sort.Strings(paths)
		for _, path := range paths {
			if _, ok := f.files[path]; ok {
				continue
			}
			fl := &file{path: path}
			f.files[path] = fl
			f.followed.Add(1)
			f.list = append(f.list, fl)
			if start && !f.opts.FromStart {
				f.openAtEnd(fl)
			}
		}
	}
}

// maxDepth bounds how deep a directory or a ** glob is followed below
// where it starts.
const maxDepth = 32

// listing is what a directory held when it was last read: its files
// (regular, or links, which kubelet's /var/log/containers are) and its
// directories.
type listing struct{ files, dirs []string }

// walk calls fn for each file in dir and in its directories down to depth
// levels below it (a glob's "*/*.log" looks one level down), watching
// each directory it enters. A directory whose time says it holds the same
// names as when it was last read is not read again. It returns false when
// dir is not a directory.
func (f *Follower) walk(dir string, depth int, fn func(path string)) bool {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		if _, ok := f.lists[dir]; ok {
			f.forget(dir)
		}
		return false
	}
	f.watch(dir)
	l, ok := f.lists[dir]
	if f.changed(dir, st) || !ok {
		entries, _ := os.ReadDir(dir)
		l = listing{}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			switch t := e.Type(); {
			case t.IsDir():
				l.dirs = append(l.dirs, path)
			case t.IsRegular(), t&fs.ModeSymlink != 0:
				l.files = append(l.files, path)
			}
		}
		f.lists[dir] = l
	}
	for _, path := range l.files {
		fn(path)
	}
	if depth > 0 {
		for _, d := range l.dirs {
			f.walk(d, depth-1, fn)
		}
	}
	return true
}

// forget drops what is known of a directory that is gone and of those
// below it, so that each is watched and read anew when it comes back.
func (f *Follower) forget(dir string) {
	for d := range f.lists {
		if d == dir || strings.HasPrefix(d, dir+string(filepath.Separator)) {
			delete(f.lists, d)
			delete(f.listed, d)
			delete(f.dirs, d)
		}
	}
	delete(f.dirs, dir)
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// matches reports whether a path newly seen in a directory is one the
// patterns name.
func (f *Follower) matches(path string) bool {
	for _, p := range f.patterns {
		if p == path || strings.HasPrefix(path, filepath.Clean(p)+string(filepath.Separator)) {
			return true
		}
		if ok, _ := doublestar.PathMatch(p, path); ok {
			return true
		}
	}
	return false
}

func (f *Follower) event(ev fsnotify.Event) {
	if fl, ok := f.files[ev.Name]; ok {
		f.check(fl)
		return
	}
	if !ev.Has(fsnotify.Create) {
		return
	}
	if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
		f.match(false) // a new directory a directory or a glob may reach into
		return
	}
	if f.matches(ev.Name) {
		f.match(false)
		if fl, ok := f.files[ev.Name]; ok {
			f.check(fl)
		}
	}
}

// relistEvery is how many polls go by before every directory is listed
// again whatever its modification time says (a name made in the same
// clock tick as the listing leaves the time as it was).
const relistEvery = 40

// changed reports whether a directory may hold other names than when it
// was last listed, and notes its time for the next call. A directory
// changed within a second of its listing is listed again: names made in
// that second may not show in its time.
func (f *Follower) changed(dir string, st fs.FileInfo) bool {
	mt := st.ModTime()
	prev, ok := f.listed[dir]
	if ok && prev.Equal(mt) && !f.relist && f.ticks%relistEvery != 0 && time.Since(mt) > time.Second {
		return false
	}
	f.listed[dir] = mt
	return true
}

// Files checked on each poll besides the busy ones: all of them when file
// events are not available (up to pollShare), a share when they are,
// since an event brings a changed file to be checked at once. A file no
// event tells of (a writer in another mount namespace, a network file
// system) is still read within len(list)/share polls.
const (
	eventShare = 200
	pollShare  = 2000
)

// busyFor is how long after its last data a file is checked on every poll.
const busyFor = 5 * time.Second

// checkAll brings the followed files up to date: every one when all, else
// the busy ones (recent data, files rotated away still being drained) and
// the next share of the others.
func (f *Follower) checkAll(all bool) {
	n := len(f.list)
	share := eventShare
	if f.w == nil {
		share = pollShare
	}
	if all || n <= share {
		for _, fl := range f.list {
			f.check(fl)
		}
		f.relist = false
		return
	}
	from := f.cursor
	f.cursor = (f.cursor + share) % n
	inShare := func(i int) bool { return (i-from+n)%n < share }
	for i, fl := range f.list {
		if inShare(i) || len(fl.old) > 0 || time.Since(fl.seen) < busyFor {
			f.check(fl)
		}
	}
	f.relist = false
}

// openAtEnd opens a file found at the start, to read only what comes.
// Beyond the budget of open files it is parked at once.
func (f *Follower) openAtEnd(fl *file) {
	o, err := f.openFile(fl.path)
	if err != nil {
		return // check will say why
	}
	if st, err := o.f.Stat(); err == nil {
		o.off = st.Size()
		o.tail = readTail(o.f, o.off, nil)
	}
	fl.cur, fl.brk = o, true
	if f.open > f.maxOpen {
		f.park(o)
	}
}

// openBudget is how many files a follower keeps open: half of what the
// process may open, at most maxOpenFiles.
func openBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 256
	}
	return int(max(64, min(lim.Cur/2, maxOpenFiles)))
}

// maxOpenFiles bounds the files a follower keeps open whatever the limit.
const maxOpenFiles = 4096

// park closes a followed file to save its descriptor, keeping where it
// was read to; it is opened again when the path changes.
func (f *Follower) park(o *open) {
	if o.f != nil {
		f.closeFile(o)
	}
}

// parkQuiet parks open files, the longest quiet first, until no more than
// seven eighths of the budget are open, so that it runs seldom.
func (f *Follower) parkQuiet() {
	if f.open <= f.maxOpen {
		return
	}
	var open []*file
	for _, fl := range f.list {
		if fl.cur != nil && fl.cur.f != nil {
			open = append(open, fl)
		}
	}
	sort.Slice(open, func(i, j int) bool { return open[i].seen.Before(open[j].seen) })
	for _, fl := range open {
		if f.open <= f.maxOpen*7/8 {
			return
		}
		f.park(fl.cur)
	}
}

// unpark opens a parked file again to read what changed. If another file
// is at the path now (st nil: none), the parked one is looked for under
// its new name in the same directory (a rename rotation), to drain it; a
// parked file deleted since is gone, and with it what was written to it
// after it was parked. Only opening the file at the path can fail, and
// the file then stays parked.
func (f *Follower) unpark(fl *file, st fs.FileInfo) error {
	o := fl.cur
	if st != nil && o.id == idOf(st) {
		n, err := f.openFile(fl.path)
		if err != nil {
			return err
		}
		if n.id == o.id {
			o.f = n.f
			return nil
		}
		f.closeFile(n) // replaced between the stat and the open
	}
	if fh := f.findInode(filepath.Dir(fl.path), o.id); fh != nil {
		o.f = fh
		return nil
	}
	fl.cur = nil
	return nil
}

// findInode opens the file of dir whose identity is id, or returns nil.
func (f *Follower) findInode(dir string, id fileID) *os.File {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || idOf(info) != id {
			continue
		}
		if o, err := f.openFile(filepath.Join(dir, e.Name())); err == nil {
			if o.id == id {
				return o.f
			}
			f.closeFile(o)
		}
	}
	return nil
}

// check brings one followed path up to date: it drains files rotated away,
// notices a rotation, deletion or truncation, and reads what is new.
func (f *Follower) check(fl *file) {
	f.drainOld(fl)
	if f.opts.afterDrain != nil {
		f.opts.afterDrain()
	}
	st, err := os.Stat(fl.path)
	if o := fl.cur; o != nil && o.f == nil {
		switch {
		case err == nil && o.id == idOf(st) && st.Size() == o.off:
			return // parked, and the file at the path is as it was
		case err == nil:
			if err := f.unpark(fl, st); err != nil {
				// Still parked, with its place: tried again next time.
				if !errors.Is(err, fs.ErrNotExist) {
					f.warn(fl, err)
				}
				return
			}
		case errors.Is(err, fs.ErrNotExist):
			f.unpark(fl, nil) // found under its new name, or gone
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if fl.cur != nil {
			// Deleted or renamed away: keep reading what is open.
			f.retire(fl)
		}
		return
	case err != nil:
		f.warn(fl, err)
		return
	case !st.Mode().IsRegular():
		f.warn(fl, fmt.Errorf("not a regular file (%s)", regular.Kind(st.Mode())))
		return
	}
	if fl.cur != nil && fl.cur.id != idOf(st) {
		// A new file at the path: finish the old one first.
		f.retire(fl)
	}
	if fl.cur == nil {
		o, err := f.openFile(fl.path)
		if err != nil {
			f.warn(fl, err)
			return
		}
		fl.cur, fl.brk = o, true
		// A writer finishes its line in the file it holds before it
		// opens the new one: read that rest now, before the new file's
		// lines come between, however late this check runs.
		for _, old := range fl.old {
			if old.join {
				f.read(fl, old)
			}
		}
	}
	fl.warns = ""
	o := fl.cur
	if truncated(o, st.Size()) {
		f.recoverCopy(fl, o)
		o.off, o.tail, fl.brk = 0, o.tail[:0], true
	}
	f.read(fl, o)
}

// retire reads what the file at the path holds until now, as bytes of the
// path, and keeps it to drain under the name it has now: what is written
// to it from here on is not part of the file at the path.
func (f *Follower) retire(fl *file) {
	o := fl.cur
	f.read(fl, o)
	o.name, o.brk = rotatedName(fl.path, o.f), true
	o.join, o.joinSeq = o.partial, fl.seq
	fl.old = append(fl.old, o)
	fl.cur = nil
}

// rotatedName is the name a file that was at path has now, found through
// /proc: "dir/server.log.1" or "dir/server.log (deleted)" in the
// directory as path names it, another directory's absolute path, or
// "path (rotated)" when it cannot be told.
func rotatedName(path string, fh *os.File) string {
	fallback := path + " (rotated)"
	target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fh.Fd())))
	if err != nil || !filepath.IsAbs(target) {
		return fallback
	}
	abs, err := filepath.Abs(path)
	if err != nil || target == abs {
		return fallback
	}
	if gone, ok := strings.CutSuffix(target, " (deleted)"); ok && gone == abs {
		return path + " (deleted)"
	}
	if filepath.Dir(target) == filepath.Dir(abs) {
		return filepath.Join(filepath.Dir(path), filepath.Base(target))
	}
	return target
}

// truncated reports whether a file was cut since it was last read: it is
// shorter than what was read, or the bytes before the offset changed
// because it was cut and has grown back since.
func truncated(o *open, size int64) bool {
	if size < o.off {
		return true
	}
	if len(o.tail) == 0 {
		return false
	}
	var b [tailKeep]byte
	n, _ := o.f.ReadAt(b[:len(o.tail)], o.off-int64(len(o.tail)))
	return !bytes.Equal(b[:n], o.tail)
}

// recoverCopy reads what was written to a file after it was last read and
// before it was truncated, from the copy a copytruncate rotation made next
// to it: a recent file in the same directory whose bytes at the offset
// match.
func (f *Follower) recoverCopy(fl *file, o *open) {
	if o.off == 0 || len(o.tail) == 0 {
		return
	}
	dir := filepath.Dir(fl.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if p == fl.path || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() < o.off || time.Since(info.ModTime()) > time.Minute {
			continue
		}
		c, err := os.Open(p)
		if err != nil {
			continue
		}
		var b [tailKeep]byte
		n, _ := c.ReadAt(b[:len(o.tail)], o.off-int64(len(o.tail)))
		if bytes.Equal(b[:n], o.tail) {
			cp := &open{f: c, off: o.off}
			f.read(fl, cp) // continues the bytes before: no break
			c.Close()
			return
		}
		c.Close()
	}
}

// drainOld reads files rotated away, and closes each once it has been
// quiet for drainIdle and the file at the path has data of its own, or
// quiet for keepIdle, which is said.
func (f *Follower) drainOld(fl *file) {
	kept := fl.old[:0]
	for _, o := range fl.old {
		f.read(fl, o)
		quiet := time.Since(o.last)
		switch {
		case quiet > drainIdle && fl.cur != nil && fl.cur.off > 0:
			f.closeFile(o)
			continue
		case quiet > f.keepIdle():
			f.closeFile(o)
			f.opts.Warn(o.name, fmt.Errorf("stopped reading it: rotated away and nothing written to it for %v", f.keepIdle()))
			continue
		}
		kept = append(kept, o)
	}
	fl.old = kept
}

// keepIdle is keepIdle, or what a test set instead.
func (f *Follower) keepIdle() time.Duration { return cmp.Or(f.opts.keepIdle, keepIdle) }

// read hands out what o holds past its offset, as bytes of the path or,
// once o was rotated away, of its own name. It reads readSize at a time
// and stops early when the context is done.
func (f *Follower) read(fl *file, o *open) {
	path, brk := fl.path, &fl.brk
	if o.name != "" {
		path, brk = o.name, &o.brk
	}
	for f.ctx.Err() == nil {
		n, err := o.f.ReadAt(f.buf, o.off)
		if n > 0 {
			restart := o.off == 0
			o.off += int64(n)
			o.last = time.Now()
			o.tail = keepTail(o.tail, f.buf[:n])
			o.partial = f.buf[n-1] != '\n'
			data := f.buf[:n]
			if o.join {
				// The rest of the line the path was in the middle of.
				o.join = false
				if fl.seq == o.joinSeq {
					end := len(data)
					if i := bytes.IndexByte(data, '\n'); i >= 0 {
						end = i + 1
					} else {
						o.join = true
					}
					f.out(Chunk{Path: fl.path, Data: data[:end]})
					fl.seq++
					o.joinSeq = fl.seq
					data = data[end:]
				}
			}
			if len(data) > 0 {
				f.out(Chunk{Path: path, Data: data, Break: *brk, Restart: restart})
				*brk = false
				if path == fl.path {
					fl.seq++
					fl.seen = o.last
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				f.warn(fl, err)
			}
			return
		}
	}
}

// keepTail keeps the last tailKeep bytes of what was read.
func keepTail(tail, data []byte) []byte {
	if len(data) >= tailKeep {
		return append(tail[:0], data[len(data)-tailKeep:]...)
	}
	tail = append(tail, data...)
	if len(tail) > tailKeep {
		tail = append(tail[:0], tail[len(tail)-tailKeep:]...)
	}
	return tail
}

// readTail reads the bytes before off, for a file opened at its end.
func readTail(f *os.File, off int64, tail []byte) []byte {
	n := min(off, tailKeep)
	tail = append(tail[:0], make([]byte, n)...)
	m, _ := f.ReadAt(tail, off-n)
	return tail[:m]
}

// openFile opens a followed file, and counts it.
func (f *Follower) openFile(path string) (*open, error) {
	o, err := openFile(path)
	if err == nil {
		f.open++
	}
	return o, err
}

// closeFile closes a file opened by openFile.
func (f *Follower) closeFile(o *open) {
	o.f.Close()
	o.f = nil
	f.open--
}

// openFile opens a followed file. O_NONBLOCK keeps a named pipe from
// blocking the open until a writer comes; what is not a regular file is
// refused.
func openFile(path string) (*open, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, fmt.Errorf("not a regular file (%s)", regular.Kind(st.Mode()))
	}
	return &open{f: fh, id: idOf(st), last: time.Now()}, nil
}

func idOf(st fs.FileInfo) fileID {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(s.Dev), ino: s.Ino}
	}
	return fileID{}
}

// warn says a problem once, until it changes or goes away.
func (f *Follower) warn(fl *file, err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", pe.Op, pe.Err) // the path is said with it
	}
	if msg := err.Error(); msg != fl.warns {
		fl.warns = msg
		f.opts.Warn(fl.path, err)
	}
}
