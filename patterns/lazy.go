package patterns

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unique"

	"github.com/tailfix/tailfix/internal/regular"
)

// A user's pack can hold tens of thousands of records, of which a scan
// matches a handful. Each record of a pack file in the usual layout is
// parsed and checked in full when the pack loads, and then keeps only
// what matching a line needs: its id, severity, role, match, tags, the ids
// it names and what it was generated from. Its title, cause, fix, test
// lines and where it is raised, most of its text, are read again from its
// file when something first asks for them (Load, LoadRecords, and
// Pack.Lookup). The pack's files are not kept in memory.

// rest is where a slim record's text lies in its file.
type rest struct {
	once      sync.Once
	file      *packFile
	off, end  int32  // the record's bytes in the file, comments before it included
	line      int32  // the line number at off
	sum       uint64 // of those bytes, to tell that the file changed
	loadedErr error
	done      atomic.Bool // loaded, or failed to
}

// packFile is a file of a user's pack that slim records are read again
// from.
type packFile struct {
	fsys    fs.FS
	name    string // in fsys
	display string // as errors name the file
}

// sumSeed hashes records' bytes within one process.
var sumSeed = maphash.MakeSeed()

// slim drops what Load can read again from r's file, whose text is text;
// the record's lines are text[off:end], starting on line n. Every string
// kept is copied out of text, so that the file's text can be collected.
func slim(r *Record, file *packFile, text string, off, end, n int) {
	r.rest = &rest{file: file, off: int32(off), end: int32(end), line: int32(n),
		sum: maphash.String(sumSeed, text[off:end])}
	r.Title, r.Cause, r.Fix, r.Tests, r.Where = "", "", Fix{}, Tests{}, nil
	clone(&r.ID, &r.Match.Message, &r.Match.Regex, &r.Match.Frame, &r.Match.Next)
	for _, list := range [][]string{r.Related, r.Follows} {
		clone(pointers(list)...)
	}
	// Many records share an exception class and tags.
	intern(&r.Match.Exception)
	intern(pointers(r.Tags)...)
	if g := r.Gen; g != nil {
		clone(&g.Kind, &g.Template, &g.Qualname, &g.Guard, &g.Commit, &g.Source, &g.FirstRelease,
			&g.LastRelease, &g.RemovedIn, &g.RemovedBy)
		clone(pointers(g.Flags)...)
		clone(pointers(g.Needles)...)
	}
	if r.needles != nil {
		r.needles.of = r.Match
		clone(pointers(r.needles.needles)...)
	}
}

func clone(ss ...*string) {
	for _, s := range ss {
		*s = strings.Clone(*s)
	}
}

func intern(ss ...*string) {
	for _, s := range ss {
		*s = unique.Make(*s).Value()
	}
}

func pointers(list []string) []*string {
	ps := make([]*string, len(list))
	for i := range list {
		ps[i] = &list[i]
	}
	return ps
}

// Slim reports whether r holds only what matching needs, its title, cause,
// fix, tests and where left in its file until Load reads them.
func (r *Record) Slim() bool { return r.rest != nil }

// Load reads again from its file the title, cause, fix, tests and where of a
// record that keeps only what matching needs; any other record has them
// already. It is safe to call from several goroutines, and reads the file
// once. When the file changed since the pack was loaded, the record gets
// its id for a title and a cause that says so, and the error is returned.
func (r *Record) Load() error {
	rs := r.rest
	if rs == nil {
		return nil
	}
	rs.once.Do(func() {
		text, err := regular.ReadRangeFS(rs.file.fsys, rs.file.name, int(rs.off), int(rs.end), maxPackFileBytes)
		rs.loadedErr = rs.fill(r, string(text), err == nil, nil)
		rs.done.Store(true)
	})
	return rs.loadedErr
}

// LoadRecords loads each slim record of recs (see Record.Load): each file
// is read and parsed once, as many files at a time as there are
// processors. It returns the first error.
func LoadRecords(recs []*Record) error {
	byFile := map[*packFile][]*Record{}
	var files []*packFile
	for _, r := range recs {
		if rs := r.rest; rs != nil && !rs.done.Load() {
			if byFile[rs.file] == nil {
				files = append(files, rs.file)
			}
			byFile[rs.file] = append(byFile[rs.file], r)
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, f := range files {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			f.load(byFile[f])
		})
	}
	wg.Wait()
	var first error
	for _, r := range recs {
		if r.rest != nil {
			first = cmp.Or(first, r.Load())
		}
	}
	return first
}

// load loads slim records of the file from one reading of it.
func (f *packFile) load(recs []*Record) {
	text, err := regular.ReadFSText(f.fsys, f.name, maxPackFileBytes)
	if err != nil {
		text = ""
	}
	// Records as the file holds them now, by where they start.
	at := map[int32]*Record{}
	parseFast(f.display, text, 1, func(r *Record, off, _, _ int) { at[int32(off)] = r })
	for _, r := range recs {
		rs := r.rest
		rs.once.Do(func() {
			read := int(rs.end) <= len(text)
			rs.loadedErr = rs.fill(r, text[rs.off:min(int(rs.end), len(text))], read, at[rs.off])
			rs.done.Store(true)
		})
	}
}

// LoadAll loads every slim record of the pack (see LoadRecords).
func (p *Pack) LoadAll() error { return LoadRecords(p.Records) }

// fill sets the fields slim dropped from text, the record's bytes now in
// its file (read is false when they could not be read), or from parsed,
// the record the file now holds at its place, when given.
func (rs *rest) fill(r *Record, text string, read bool, parsed *Record) error {
	var full Record
	err := fmt.Errorf("%s changed since the pack was loaded: record %s at line %d could not be read again", rs.file.display, r.ID, rs.line)
	if read && maphash.String(sumSeed, text) == rs.sum {
		if parsed == nil {
			if recs, ok := parseFast("", text, int(rs.line), nil); ok && len(recs) == 1 {
				parsed = recs[0]
			}
		}
		if parsed != nil && parsed.ID == r.ID {
			full, err = *parsed, nil
		}
	}
	if err != nil {
		full.Title = r.ID
		full.Cause = "tailfix could not read this record again: " + err.Error() + "."
	}
	r.Title, r.Cause, r.Fix, r.Tests, r.Where = full.Title, full.Cause, full.Fix, full.Tests, full.Where
	return err
}
