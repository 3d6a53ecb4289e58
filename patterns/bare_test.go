package patterns

import (
	"strings"
	"testing"
)

func TestBareTable(t *testing.T) {
	idx, err := bareIndex()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for k, sites := range idx {
		n += len(sites)
		for _, s := range sites {
			if s.Class != "AssertionError" && s.Class != "NotImplementedError" || s.FirstRelease == "" || !strings.HasPrefix(s.File, "python/sglang/") {
				t.Fatalf("%q: %+v", k, s)
			}
		}
	}
	if n < 5000 {
		t.Errorf("only %d message-less sites", n)
	}
}

func TestBareSites(t *testing.T) {
	idx, err := parseBare("t.tsv", "# x\n"+
		"python/sglang/srt/a.py\t10\tCache.evict\tAssertionError\tx > 0\t0.5.0\t\n"+
		"python/sglang/srt/a.py\t12\tCache.evict\tAssertionError\tlen(y) == n\t0.5.0\t\n"+
		"python/sglang/srt/a.py\t20\tCache.get\tNotImplementedError\t\t0.4.0\t0.5.1\n")
	if err != nil {
		t.Fatal(err)
	}
	pick := func(file, fn, class, code string) []*BareSite { return bareSites(idx, file, fn, class, code) }
	if got := pick("/opt/venv/lib/python3.12/site-packages/sglang/srt/a.py", "evict", "AssertionError", "    assert len(y) == n"); len(got) != 1 || got[0].Line != 12 {
		t.Errorf("by the source line: %+v", got)
	}
	if got := pick("/x/sglang/srt/a.py", "evict", "AssertionError", ""); len(got) != 2 {
		t.Errorf("without it: %d", len(got))
	}
	r := idx[bareKey("sglang/srt/a.py", "get")][0].Record()
	if r.ID != "sglang-src/srt.a/cache-get-not-implemented" || r.Match.Exception != "NotImplementedError" || r.Gen.LastRelease != "0.5.1" {
		t.Errorf("record %s %+v %+v", r.ID, r.Match, r.Gen)
	}
	if _, err := parseBare("t.tsv", "a\tb\n"); err == nil {
		t.Error("a short line was read")
	}
}

// The errors of the libraries sglang runs on are read on demand, each
// under its own family of ids and its own repository.
func TestLibraryRecords(t *testing.T) {
	libs := Libraries()
	if len(libs) < 5 {
		t.Fatalf("libraries %q", libs)
	}
	for _, lib := range libs {
		recs, err := LibraryRecords(lib)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			t.Errorf("%s: no records", lib)
			continue
		}
		for _, r := range recs {
			if !strings.HasPrefix(r.ID, lib+"-src/") || r.Library() != lib || r.Where.Repo == "sgl-project/sglang" || r.Gen.Commit == "" ||
				r.Gen.Kind != "raise" && r.Gen.Kind != "assert" {
				t.Fatalf("%s: %s %q %+v", lib, r.ID, r.Library(), r.Where)
			}
		}
		if got := LookupLibrary(recs[0].ID); got != recs[0] {
			t.Errorf("LookupLibrary(%s) = %v", recs[0].ID, got)
		}
	}
	if LookupLibrary("sglang-src/srt.server_args/x") != nil || LookupLibrary("nosuch-src/x/y") != nil {
		t.Error("found what is no library's")
	}
	if _, err := LibraryRecords("nosuch"); err == nil {
		t.Error("a library with no table was read")
	}
}
