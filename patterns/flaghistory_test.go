package patterns

import "testing"

func TestFlagHistoryIndex(t *testing.T) {
	h := &FlagHistory{Releases: []string{"0.4.3", "0.4.3.post1", "0.5.0rc0", "0.5.0", "0.5.8.post1", "main 2026-05", "main 2026-08-23"}}
	tests := []struct {
		v     string
		i     int
		exact bool
	}{
		{"0.4.3", 0, true},
		{"v0.5.0", 3, true},
		{"0.4.3.post3", 1, false},
		{"0.5.0rc1", 2, false},
		{"0.4.9", 1, false},
		{"0.5.11", Newer, false},
		{"0.5.8.post1", 4, true},
		{"0.3.0", -1, false},
		{"latest", -1, false},
	}
	for _, tt := range tests {
		if i, exact := h.Index(tt.v); i != tt.i || exact != tt.exact {
			t.Errorf("Index(%q) = %d, %v; want %d, %v", tt.v, i, exact, tt.i, tt.exact)
		}
	}
}

func TestEmbeddedFlagHistory(t *testing.T) {
	h, err := FlagHistories()
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Releases) < 100 || len(h.Names()) < 400 {
		t.Fatalf("%d releases, %d flags", len(h.Releases), len(h.Names()))
	}
	first, last, ok := h.Span("--tp-size", "")
	if !ok || first > 10 || last != len(h.Releases)-1 {
		t.Errorf("--tp-size: %d-%d %v", first, last, ok)
	}
	if _, _, ok := h.Span("--radix-eviction-policy", "lru"); !ok {
		t.Error("no choice lru of --radix-eviction-policy")
	}
}

// The table of an older release drops the flags and choices added after
// it, and takes back those removed since.
func TestFlagTableAt(t *testing.T) {
	table, err := Flags()
	if err != nil {
		t.Fatal(err)
	}
	h, err := FlagHistories()
	if err != nil {
		t.Fatal(err)
	}
	i, exact := h.Index("0.4.6")
	if !exact {
		t.Fatalf("0.4.6 is not a release of the history")
	}
	old := table.At(h, i)
	if old.Release != "0.4.6" {
		t.Errorf("release %q", old.Release)
	}
	if table.Lookup("--radix-eviction-policy") == nil || old.Lookup("--radix-eviction-policy") != nil {
		t.Error("--radix-eviction-policy (added in 0.5.3rc2) is in the 0.4.6 table")
	}
	if old.Lookup("--tp-size") == nil {
		t.Error("--tp-size is not in the 0.4.6 table")
	}
	if table.At(h, -1) != table || table.At(h, Newer) != table {
		t.Error("a release the history does not place changes the table")
	}
	// A flag the newest release dropped, that 0.4.6 had.
	found := ""
	for _, n := range h.Names() {
		if first, last, _ := h.Span(n, ""); first <= i && i <= last && table.Lookup(n) == nil {
			found = n
			break
		}
	}
	if found == "" {
		t.Fatal("no flag of 0.4.6 that the newest release dropped")
	}
	if old.Lookup(found) == nil {
		t.Errorf("%s, a flag of 0.4.6, is not in its table", found)
	}
}

// What a release's table lacks, and what it says of it: when the flag came,
// when it went, and what its help named in its place.
func TestFlagTableLacks(t *testing.T) {
	table, err := Flags()
	if err != nil {
		t.Fatal(err)
	}
	h, err := FlagHistories()
	if err != nil {
		t.Fatal(err)
	}
	at := func(v string) *FlagTable {
		i, exact := h.Index(v)
		if !exact {
			t.Fatalf("%s is not a release of the history", v)
		}
		return table.At(h, i)
	}
	tests := []struct {
		release, flag, span string
		lacks               bool
	}{
		{"0.4.6", "--radix-eviction-policy", "releases since 0.5.3rc2", true},
		{"0.5.3", "--radix-eviction-policy", "", false},
		{"0.5.3", "--enable-flashmla", "0.4.4.post2 to 0.4.7; 0.4.7.post1 removed it, naming --attention-backend in its place", true},
		{"0.4.7", "--enable-flashmla", "", false},
		{"0.5.3", "--disable-mla", "0.3.1.post2 to 0.4.5.post1; 0.4.5.post2 removed it", true},
		{"0.5.3", "--no-such-flag", "", false}, // not sglang's: no lack of this release
	}
	for _, tt := range tests {
		span, lacks := at(tt.release).Lacks(tt.flag)
		if span != tt.span || lacks != tt.lacks {
			t.Errorf("%s %s: %q %v, want %q %v", tt.release, tt.flag, span, lacks, tt.span, tt.lacks)
		}
	}
	if _, lacks := table.Lacks("--disable-mla"); lacks {
		t.Error("a table of no known release says what it lacks")
	}
	if got := Replacement("Deprecated: use --moe-runner-backend=flashinfer_trtllm instead of --enable-flashinfer-trtllm-moe.", []string{"--enable-flashinfer-trtllm-moe"}); got != "--moe-runner-backend=flashinfer_trtllm" {
		t.Errorf("Replacement: %q", got)
	}
	if got := Replacement("Use --enable-x to turn it on.", []string{"--enable-x"}); got != "" {
		t.Errorf("Replacement names the flag itself: %q", got)
	}
}
