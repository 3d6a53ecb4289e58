package matcher

import (
	"sync"
	"testing"
	"testing/fstest"

	"github.com/tailfix/tailfix/patterns"
)

// userPack is a user's pack (--patterns DIR): a record of a regexp that
// goes on with a next line, a frame record, and two records whose
// literals share their first bytes.
const userPack = `
- id: acme/widget-missing
  title: A widget is missing
  severity: error
  match: {exception: ValueError, regex: 'widget (?P<n>\d+) is missing from the frobnicator rack', next: '^Rack \d+ offline'}
  tests: {match: ["ValueError: widget 12 is missing from the frobnicator rack"]}
- id: acme/frame
  title: The rack loader failed
  severity: error
  match: {exception: KeyError, frame: 'acme_serving/rack_loader\.py", line \d+, in load_rack'}
  tests: {match: ['  File "/srv/acme_serving/rack_loader.py", line 12, in load_rack']}
- id: acme/overheated
  title: The frobnicator overheated
  severity: error
  match: {message: "the frobnicator rack overheated at the top shelf"}
  tests: {match: ["the frobnicator rack overheated at the top shelf"]}
- id: acme/underpowered
  title: The frobnicator is underpowered
  severity: error
  match: {message: "the frobnicator rack is underpowered"}
  tests: {match: ["the frobnicator rack is underpowered"]}
`

// userMatcher compiles the user's pack loaded as --patterns loads it.
func userMatcher(t *testing.T) *Matcher {
	t.Helper()
	extra, err := patterns.Load(fstest.MapFS{"acme.yaml": {Data: []byte(userPack)}}, "packs")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(extra)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Compile leaves every record's expressions as text: a pack of thousands
// starts without compiling them. A line compiles those of the records it
// proposes, and no others.
func TestCompileLeavesExpressionsToFirstUse(t *testing.T) {
	m := userMatcher(t)
	compiled := func(i int) bool { p := &m.pats[i]; return p.re != nil || p.frame != nil || p.next != nil }
	for i := range m.pats {
		if compiled(i) {
			t.Fatalf("%s compiled by Compile", m.pats[i].rec.ID)
		}
	}
	got := m.MatchLine([]byte("ValueError: widget 12 is missing from the frobnicator rack"))
	if len(got) != 1 || got[0].ID != "acme/widget-missing" {
		t.Fatalf("matched %v, want acme/widget-missing", got)
	}
	if p := &m.pats[0]; p.re == nil || p.next == nil {
		t.Errorf("the record matched has regexp %v and next %v, want both compiled", p.re, p.next)
	}
	for i := 1; i < len(m.pats); i++ {
		if compiled(i) {
			t.Errorf("%s compiled by a line that does not propose it", m.pats[i].rec.ID)
		}
	}
	if got := m.MatchLine([]byte(`  File "/srv/acme_serving/rack_loader.py", line 7, in load_rack`)); len(got) != 1 || got[0].ID != "acme/frame" {
		t.Errorf("frame line matched %v, want acme/frame", got)
	}
	if m.pats[1].frame == nil {
		t.Error("the frame record matched has no compiled frame")
	}
}

// Engines share the matcher: the first lines that need a record's
// expressions compile them once, whichever goroutine gets there first
// (go test -race guards the once).
func TestCompileOnFirstUseIsShared(t *testing.T) {
	m := userMatcher(t)
	var wg sync.WaitGroup
	res := make([]int, 8)
	for g := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[g] = len(m.MatchLine([]byte("ValueError: widget 3 is missing from the frobnicator rack")))
		}()
	}
	wg.Wait()
	for g, n := range res {
		if n != 1 {
			t.Errorf("goroutine %d matched %d records, want 1", g, n)
		}
	}
}

// A user's records are proposed by needles of at most genNeedle bytes, as
// generated ones are, each the window of its literal fewest others share:
// the two literals that start alike are not both proposed on their start.
func TestUserNeedlesAreShortWindows(t *testing.T) {
	m := userMatcher(t)
	byPat := map[int32][]string{}
	for id, owners := range m.owners {
		for _, o := range owners {
			if o >= 0 {
				byPat[o] = append(byPat[o], string(m.needles[id]))
			}
		}
	}
	for i := range m.pats {
		ns := byPat[int32(i)]
		if len(ns) == 0 {
			t.Errorf("%s has no needle", m.pats[i].rec.ID)
		}
		for _, n := range ns {
			if len(n) > genNeedle {
				t.Errorf("%s: needle %q is longer than %d bytes", m.pats[i].rec.ID, n, genNeedle)
			}
		}
	}
	a, b := byPat[2], byPat[3]
	if len(a) == 1 && len(b) == 1 && a[0] == b[0] {
		t.Errorf("acme/overheated and acme/underpowered share the needle %q", a[0])
	}
}

// Built-in records are not the user's; records loaded from a directory are.
func TestUserRecords(t *testing.T) {
	hand, err := patterns.Curated()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range hand.Records {
		if r.User() {
			t.Fatalf("built-in %s is a user's record", r.ID)
		}
	}
	m := userMatcher(t)
	for i := range m.pats {
		if r := m.pats[i].rec; !r.User() {
			t.Errorf("%s, loaded from a directory, is not a user's record", r.ID)
		}
	}
}
