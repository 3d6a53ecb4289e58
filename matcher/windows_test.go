package matcher

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/tailfix/tailfix/internal/packgen"
	"github.com/tailfix/tailfix/patterns"
)

// userPackOf3000 is a user's pack of 3,000 records (scripts/genpack's),
// loaded as --patterns loads it, once for all tests.
var userPackOf3000 = sync.OnceValues(func() (*patterns.Pack, error) {
	files, err := packgen.Files(3000, 1000, 3)
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	pack, err := patterns.Load(fsys, "packs")
	if err != nil {
		return nil, err
	}
	// The tests read the records' test lines, which a user's pack leaves
	// in its files until asked for.
	return pack, pack.LoadAll()
})

// userPack3000 returns the pack, and it compiled with its windows in the
// index and in the automaton.
func userPack3000(t testing.TB) (pack *patterns.Pack, indexed, automaton *Matcher) {
	t.Helper()
	pack, err := userPackOf3000()
	if err != nil {
		t.Fatal(err)
	}
	if indexed, err = compile(pack, 0); err != nil {
		t.Fatal(err)
	}
	if automaton, err = compile(pack, math.MaxInt); err != nil {
		t.Fatal(err)
	}
	if indexed.windows == nil || automaton.windows != nil {
		t.Fatal("the window index is not where it should be")
	}
	return pack, indexed, automaton
}

// A large user pack's windows are in the index, a small one's in the
// automaton.
func TestLargeUserPackIsIndexed(t *testing.T) {
	pack, err := userPackOf3000()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(pack)
	if err != nil {
		t.Fatal(err)
	}
	if m.windows == nil {
		t.Error("3,000 user records compiled without a window index")
	}
	if userMatcher(t).windows != nil {
		t.Error("4 user records compiled with a window index")
	}
}

// Every record of a large user pack matches its own lines through the
// window index, and finds no more and no less than through the automaton.
func TestUserPackRecordTests(t *testing.T) {
	pack, indexed, automaton := userPack3000(t)
	for _, r := range pack.Records {
		for _, l := range append(slices.Clone(r.Tests.Match), r.Tests.NoMatch...) {
			got, want := indexed.MatchLine([]byte(l)), automaton.MatchLine([]byte(l))
			if !sameRecords(got, want) {
				t.Fatalf("%q: index found %v, automaton %v", l, ids(got), ids(want))
			}
		}
		for _, l := range r.Tests.Match {
			if !slices.Contains(indexed.MatchLine([]byte(l)), r) {
				t.Errorf("%s does not match its line %q", r.ID, l)
			}
		}
	}
}

// FuzzMatchLineDifferentialUserPack proves the window index drops no
// match: for any line, MatchLine finds what the naive loop over all the
// records of a large user pack finds.
func FuzzMatchLineDifferentialUserPack(f *testing.F) {
	pack, m, _ := userPack3000(f)
	res := map[string]*regexp.Regexp{}
	for i, r := range pack.Records {
		if r.Match.Regex != "" {
			res[r.ID] = regexp.MustCompile(r.Match.Regex)
		}
		if i%10 == 0 {
			for _, l := range append(slices.Clone(r.Tests.Match), r.Tests.NoMatch...) {
				f.Add([]byte(l))
				f.Add([]byte("[2026-08-28 10:15:20 TP3] " + l[:len(l)/2] + "\x1b[1m" + l[len(l)/2:]))
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if i := slices.Index(line, '\n'); i >= 0 {
			line = line[:i]
		}
		got, want := m.MatchLine(line), naiveMatch(pack, res, line)
		if !sameRecords(got, want) {
			t.Fatalf("line %q: index found %v, naive loop found %v", line, ids(got), ids(want))
		}
	})
}

// A log of every record's line, read in blocks, is diagnosed alike through
// the window index and through the automaton: the index's hits are put in
// line order among the automaton's.
func TestUserPackLogIndexedAsInAutomaton(t *testing.T) {
	pack, indexed, automaton := userPack3000(t)
	var b strings.Builder
	for i, r := range pack.Records {
		fmt.Fprintf(&b, "[2026-08-28 10:15:%02d TP%d] Decode batch, #running-req: 3, token usage: 0.12\n", i%60, i%8)
		fmt.Fprintf(&b, "[2026-08-28 10:15:%02d TP%d] %s\n", i%60, i%8, r.Tests.Match[0])
	}
	log := b.String()
	key := func(os []Occurrence) []string {
		var out []string
		for _, o := range os {
			out = append(out, fmt.Sprintf("%d %s", o.Line, o.ID))
		}
		return out
	}
	got, want := key(occurrences(t, indexed, log, 0)), key(occurrences(t, automaton, log, 0))
	if !slices.Equal(got, want) {
		t.Fatalf("index found %d occurrences, automaton %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if len(got) < len(pack.Records)*9/10 {
		t.Errorf("%d occurrences of %d records' lines", len(got), len(pack.Records))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
