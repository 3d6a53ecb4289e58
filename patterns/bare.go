package patterns

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// The sites in sglang's source that raise an exception with no message:
// an assert without one, raise NotImplementedError. See
// generated/README.md.
//
//go:embed generated/bare.tsv
var bareTable string

// BareHeader is the column line of the table of message-less sites.
const BareHeader = "# file\tline\tfunction\tclass\tcondition\tfirst_release\tlast_release"

// A BareSite is a place in sglang's source that raises an exception with
// no message: what a traceback ending in "AssertionError" alone is known
// by. Its record says where, and for an assert the condition that failed.
type BareSite struct {
	// File is the path in the repository; Function the qualified name of
	// the enclosing def ("MambaRadixCache.evict").
	File, Function string
	Line           int
	// Class is AssertionError or NotImplementedError; Condition an
	// assert's condition as written.
	Class, Condition string
	// FirstRelease and LastRelease are the first and last sglang release
	// that have the site; LastRelease is empty while the newest does.
	FirstRelease, LastRelease string

	once sync.Once
	rec  *Record
}

// bareIndex holds the sites by the frame a traceback shows them in: the
// file's path from sglang/ on, and the function's own name.
var bareIndex = sync.OnceValues(func() (map[string][]*BareSite, error) {
	return parseBare("patterns/generated/bare.tsv", bareTable)
})

func parseBare(origin, text string) (map[string][]*BareSite, error) {
	idx := map[string][]*BareSite{}
	for lineNo := 1; text != ""; lineNo++ {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return nil, &RecordError{File: origin, Line: lineNo, Err: fmt.Errorf("%d fields, want 7", len(f))}
		}
		for i := range f {
			f[i] = UnescapeTSV(f[i])
		}
		n, _ := strconv.Atoi(f[1])
		s := &BareSite{File: f[0], Line: n, Function: f[2], Class: f[3], Condition: f[4], FirstRelease: f[5], LastRelease: f[6]}
		k := bareKey(s.File, s.Function)
		idx[k] = append(idx[k], s)
	}
	return idx, nil
}

// bareKey is the key of a site in the index: its file from sglang/ on and
// the last part of its function's name, as a frame line gives them.
func bareKey(file, function string) string {
	if i := strings.LastIndex(file, "sglang/"); i >= 0 {
		file = file[i:]
	}
	if i := strings.LastIndexByte(function, '.'); i >= 0 {
		function = function[i+1:]
	}
	return file + "\x00" + function
}

// BareSites returns the message-less sites of class raised in function
// of file (a frame's path, which may start anywhere before sglang/): all
// of them, or those whose condition is code, the source line the
// traceback shows under the frame, when one is.
func BareSites(file, function, class, code string) ([]*BareSite, error) {
	idx, err := bareIndex()
	if err != nil {
		return nil, err
	}
	return bareSites(idx, file, function, class, code), nil
}

func bareSites(idx map[string][]*BareSite, file, function, class, code string) []*BareSite {
	var out []*BareSite
	for _, s := range idx[bareKey(file, function)] {
		if s.Class == class {
			out = append(out, s)
		}
	}
	if code = strings.TrimSpace(code); len(out) > 1 && code != "" {
		var same []*BareSite
		for _, s := range out {
			if s.Class == "AssertionError" && strings.TrimSpace(strings.TrimPrefix(code, "assert ")) == s.Condition {
				same = append(same, s)
			}
		}
		if len(same) > 0 {
			out = same
		}
	}
	return out
}

// Record returns the generated record of the site.
func (s *BareSite) Record() *Record {
	s.once.Do(func() {
		mod := strings.TrimSuffix(strings.TrimPrefix(s.File, "python/sglang/"), ".py")
		mod = strings.ReplaceAll(mod, "/", ".")
		g := &Generated{Kind: "raise", Qualname: s.Function, Sites: 1, FirstRelease: s.FirstRelease, LastRelease: s.LastRelease}
		title := "NotImplementedError raised in " + s.Function
		id := "sglang-src/" + mod + "/" + slug(s.Function) + "-not-implemented"
		if s.Class == "AssertionError" {
			g.Kind, g.Guard = "assert", s.Condition
			title = "An assertion in " + s.Function + " failed"
			id = "sglang-src/" + mod + "/" + slug(s.Function) + "-assert"
		}
		s.rec = &Record{
			ID:       strings.ToLower(id),
			Title:    title,
			Severity: SeverityError,
			Role:     RoleCause,
			Match:    Match{Exception: s.Class},
			Where:    &Site{Repo: "sgl-project/sglang", File: s.File, Line: s.Line, Function: s.Function},
			Origin:   "patterns/generated/bare.tsv",
			Gen:      g,
		}
	})
	return s.rec
}
