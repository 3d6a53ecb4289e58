package diagnose

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

func TestMergesRanksAndLinksSymptoms(t *testing.T) {
	m := testMatcher(t)
	var log strings.Builder
	for r := range 8 {
		fmt.Fprintf(&log, "[2026-08-28 11:02:4%d TP%d] Scheduler hit an exception: Traceback (most recent call last):\n", r, r)
		log.WriteString("  File \"x.py\", line 1, in f\n")
		fmt.Fprintf(&log, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %d.00 GiB.\n\n", r)
	}
	log.WriteString("[2026-08-28 11:02:49] Received sigquit from a child process. It usually means the child failed.\n")
	fs := scanText(t, m, log.String()).Findings()
	if len(fs) != 2 {
		t.Fatalf("got %d findings, want 2", len(fs))
	}
	oom, sig := fs[0], fs[1]
	wantRanks := []string{"TP0", "TP1", "TP2", "TP3", "TP4", "TP5", "TP6", "TP7"}
	if oom.ID != "t/oom" || oom.Count != 8 || !slices.Equal(oom.Ranks, wantRanks) || !oom.RootCause ||
		oom.FirstSeen != "2026-08-28 11:02:40" || oom.LastSeen != "2026-08-28 11:02:47" {
		t.Errorf("oom finding = %+v", oom)
	}
	if sig.ID != "t/sigquit" || sig.RootCause || sig.SymptomOf != "t/oom" {
		t.Errorf("sigquit finding = %+v", sig)
	}
}

// A complete cause first, symptoms next, a traceback cut before its
// exception after them; a symptom printed before the traceback it follows
// from is still linked to it.
func TestOrdersByEvidence(t *testing.T) {
	m := testMatcher(t)
	tests := []struct {
		name, log, want string
	}{
		{
			name: "symptom before its cause",
			log: "[2026-11-29 10:15:02] Received sigquit from a child process. It usually means the child failed.\n" +
				"[2026-11-29 10:15:02 TP1] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"  File \"a.py\", line 1, in f\ntorch.OutOfMemoryError: CUDA out of memory.\n",
			want: "t/oom root\nt/sigquit symptom of t/oom\n",
		},
		{
			name: "cut traceback after the symptom, which points to it",
			log: "[2026-11-29 10:15:02] Received sigquit from a child process. It usually means the child failed.\n" +
				"[2026-11-29 10:15:02 TP2] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"  File \"a.py\", line 1, in init_torch_distributed\n",
			want: "t/sigquit symptom of unknown/traceback\nunknown/traceback root partial\n",
		},
		{
			name: "glog lines differing in addresses are one finding",
			log: "E1129 10:01:02.1 1 rdma.cpp:203] Failed to register memory 0x7c0ab6000000: Bad address [14]\n" +
				"E1129 10:01:02.2 1 rdma.cpp:203] Failed to register memory 0x7c0a4a000000: Bad address [14]\n",
			want: "unknown/error root ×2\n",
		},
		{
			name: "a line that only says it failed comes after the error a record knows",
			log: "[2026-11-29 10:10:00] Failed to get device capability: nvcc not found.\n" +
				"[2026-11-29 10:11:00] Loading weights.\n[2026-11-29 10:12:00] Loading weights.\n[2026-11-29 10:13:00] Loading weights.\n" +
				"[2026-11-29 10:15:02 TP1] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"  File \"a.py\", line 1, in f\ntorch.OutOfMemoryError: CUDA out of memory.\n",
			want: "t/oom root\nunknown/error root\n",
		},
		{
			name: "and after a traceback no record knows",
			log: "[2026-11-29 10:10:00] Failed to get device capability: nvcc not found.\n" +
				"[2026-11-29 10:11:00] Loading weights.\n[2026-11-29 10:12:00] Loading weights.\n[2026-11-29 10:13:00] Loading weights.\n" +
				"[2026-11-29 10:15:02 TP1] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"  File \"a.py\", line 1, in f\nValueError: bad shape\n",
			want: "unknown/traceback root\nunknown/error root\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			for _, f := range scanText(t, m, tt.log).Findings() {
				b.WriteString(f.ID)
				switch {
				case f.RootCause:
					b.WriteString(" root")
				case f.SymptomOf != "":
					b.WriteString(" symptom of " + f.SymptomOf)
				}
				if f.Partial {
					b.WriteString(" partial")
				}
				if f.Count > 1 {
					fmt.Fprintf(&b, " ×%d", f.Count)
				}
				b.WriteString("\n")
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

// link picks each symptom's cause by rank: an earlier complete cause in
// its input; one in another input of the report that the clock puts
// before it; a later one in its input; a traceback cut before its
// exception in its input; any other.
func TestLinkPicksTheCause(t *testing.T) {
	type f struct {
		id      string
		src     int
		line    int64
		time    string
		symptom bool
		partial bool
		warning bool
		down    bool     // a router's or an HTTP response's line
		follows []string // the record follows these
	}
	tests := []struct {
		name  string
		fs    []f
		want  string // the symptom's symptom_of
		order string // the ids in reading order, when it matters
	}{
		{"earlier cause in its input beats the other input's earlier clock",
			[]f{{id: "other", src: 0, line: 1, time: "10:00"}, {id: "same", src: 1, line: 5, time: "10:05"},
				{id: "sym", src: 1, line: 10, time: "10:06", symptom: true}}, "same", ""},
		{"the other input's earlier clock beats a later cause in its input",
			[]f{{id: "other", src: 0, line: 50, time: "10:00"}, {id: "later", src: 1, line: 20, time: "10:07"},
				{id: "sym", src: 1, line: 10, time: "10:06", symptom: true}}, "other", ""},
		{"the other input's later clock loses to a later cause in its input",
			[]f{{id: "other", src: 0, line: 1, time: "10:09"}, {id: "later", src: 1, line: 20, time: "10:07"},
				{id: "sym", src: 1, line: 10, time: "10:06", symptom: true}}, "later", ""},
		{"a complete later cause beats a cut traceback",
			[]f{{id: "cut", src: 0, line: 5, partial: true}, {id: "later", src: 0, line: 20},
				{id: "sym", src: 0, line: 10, symptom: true}}, "later", ""},
		{"a cut traceback beats a cause in another input",
			[]f{{id: "other", src: 1, line: 1}, {id: "cut", src: 0, line: 5, partial: true},
				{id: "sym", src: 0, line: 10, symptom: true}}, "cut", ""},
		{"the earliest of two earlier causes",
			[]f{{id: "first", src: 0, line: 2}, {id: "second", src: 0, line: 5},
				{id: "sym", src: 0, line: 10, symptom: true}}, "first", ""},
		{"a warning is no cause",
			[]f{{id: "warn", src: 0, line: 2, warning: true}, {id: "sym", src: 0, line: 10, symptom: true}}, "", ""},
		{"another symptom is no cause",
			[]f{{id: "sym0", src: 0, line: 2, symptom: true}, {id: "sym", src: 0, line: 10, symptom: true}}, "", ""},
		{"a cause in another input with no clock",
			[]f{{id: "other", src: 1, line: 1}, {id: "sym", src: 0, line: 10, symptom: true}}, "other", ""},
		{"a router's error yields to a server's later one",
			[]f{{id: "sym", src: 0, line: 2, down: true}, {id: "server", src: 0, line: 10}}, "server", "server sym"},
		{"a router's error yields even to a server's symptom",
			[]f{{id: "sym", src: 0, line: 2, down: true}, {id: "lost", src: 0, line: 10, symptom: true}}, "lost", "lost sym"},
		{"a router's error alone stays the cause",
			[]f{{id: "sym", src: 0, line: 2, down: true}, {id: "warn", src: 0, line: 10, warning: true}}, "", "sym warn"},
		{"a router's error is no cause of a server's symptom",
			[]f{{id: "router", src: 0, line: 2, down: true}, {id: "sym", src: 0, line: 10, symptom: true}}, "", "sym router"},
		{"a symptom follows the record it names, ahead of time order",
			[]f{{id: "sym", src: 0, line: 2, symptom: true, follows: []string{"peer"}}, {id: "peer", src: 0, line: 10, symptom: true}}, "peer", "peer sym"},
		{"a record it follows must be at error level",
			[]f{{id: "sym", src: 0, line: 2, symptom: true, follows: []string{"peer"}}, {id: "peer", src: 0, line: 10, warning: true}}, "", "sym peer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fs []*Finding
			var sym *Finding
			for _, x := range tt.fs {
				g := &Finding{ID: x.id, key: x.id, src: x.src, Line: x.line, FirstSeen: x.time,
					Severity: patterns.SeverityError, RootCause: !x.symptom, Partial: x.partial, downstream: x.down}
				if x.warning {
					g.Severity = patterns.SeverityWarning
				}
				if x.follows != nil {
					g.Record = &patterns.Record{ID: x.id, Follows: x.follows}
				}
				if x.id == "sym" {
					sym = g
				}
				fs = append(fs, g)
			}
			order(fs)
			if sym.SymptomOf != tt.want {
				t.Errorf("symptom_of = %q, want %q", sym.SymptomOf, tt.want)
			}
			if tt.order != "" {
				var ids []string
				for _, g := range fs {
					ids = append(ids, g.ID)
				}
				if got := strings.Join(ids, " "); got != tt.order {
					t.Errorf("order %q, want %q", got, tt.order)
				}
			}
		})
	}
}

// What a finding shows comes from its earliest occurrence whatever order
// the occurrences are added in, and its time range covers them all.
func TestFindingShowsItsEarliestOccurrence(t *testing.T) {
	rec := &patterns.Record{ID: "r", Title: "r", Severity: patterns.SeverityError}
	occ := []matcher.Occurrence{
		{Record: rec, ID: "r", Message: "late", Line: 30, EndLine: 31, Time: "10:03", Rank: "TP1"},
		{Record: rec, ID: "r", Message: "early", Line: 10, EndLine: 12, Time: "10:01", Rank: "TP0"},
		{Record: rec, ID: "r", Message: "middle", Line: 20, EndLine: 20, Time: "10:02", Rank: "TP10"},
	}
	for _, perm := range [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		c := newCorrelator()
		for _, i := range perm {
			c.add(occ[i], 0)
		}
		f := c.findings[0]
		got := fmt.Sprintf("%s %d-%d ×%d %v %s..%s %v", f.Message, f.Line, f.EndLine, f.Count, f.Ranks, f.FirstSeen, f.LastSeen, f.Spans)
		if want := "early 10-12 ×3 [TP0 TP1 TP10] 10:01..10:03 [{10 12} {20 20} {30 31}]"; got != want {
			t.Errorf("order %v: %s, want %s", perm, got, want)
		}
	}
}

// A finding locates its earliest maxSpans occurrences, whatever order
// they come in, and counts them all.
func TestSpansKeepTheEarliest(t *testing.T) {
	rec := &patterns.Record{ID: "r", Severity: patterns.SeverityError}
	for _, down := range []bool{false, true} {
		c := newCorrelator()
		n := maxSpans + 10
		for i := range n {
			l := int64(i + 1)
			if down {
				l = int64(n - i)
			}
			c.add(matcher.Occurrence{Record: rec, ID: "r", Line: l, EndLine: l}, 0)
		}
		f := c.findings[0]
		if f.Count != n || len(f.Spans) != maxSpans || f.Spans[0].Line != 1 || f.Spans[maxSpans-1].Line != maxSpans {
			t.Errorf("down=%v: count %d, %d spans from %v to %v; want %d, %d spans from line 1 to %d",
				down, f.Count, len(f.Spans), f.Spans[0], f.Spans[len(f.Spans)-1], n, maxSpans, maxSpans)
		}
	}
}

// An input keeps at most maxUnknown distinct unrecognised findings and
// folds the rest into the summary of their family, which says how many
// distinct messages and occurrences it holds.
func TestUnknownFindingsAreBounded(t *testing.T) {
	c := newCorrelator()
	for i := range maxUnknown + 50 {
		c.add(matcher.Occurrence{ID: matcher.UnknownError, Message: fmt.Sprintf("error %c%c", 'a'+i%26, 'a'+i/26), Line: int64(i + 1)}, 0)
	}
	rec := &patterns.Record{ID: "r", Severity: patterns.SeverityError}
	if f, isNew := c.add(matcher.Occurrence{Record: rec, ID: "r", Line: 9999}, 0); f == nil || !isNew {
		t.Error("a known finding past the cap was not kept")
	}
	if len(c.findings) != maxUnknown+2 {
		t.Fatalf("kept %d findings; want %d, a family's summary and the known one", len(c.findings), maxUnknown+2)
	}
	fam := c.findings[maxUnknown]
	if fam.Folded != 50 || fam.Count != 50 || fam.Line != maxUnknown+1 || fam.ID != matcher.UnknownError || c.folded() != 50 {
		t.Errorf("family %s: %d distinct, ×%d, line %d; want 50 distinct, ×50, line %d", fam.ID, fam.Folded, fam.Count, fam.Line, maxUnknown+1)
	}
	if !slices.IsSortedFunc(c.findings, func(a, b *Finding) int { return int(a.Line - b.Line) }) {
		t.Error("findings are not kept in line order")
	}
}

// Folding keeps memory bounded whatever the number of distinct messages,
// counts every occurrence, and lists a message that recurs often however
// late it starts.
func TestFoldingKeepsTheFrequent(t *testing.T) {
	c := newCorrelator()
	const n = 100000
	line := int64(0)
	for i := range maxUnknown + n {
		line++
		c.add(matcher.Occurrence{ID: matcher.UnknownError, Message: "failed on shard " + letters(i), Line: line}, 0)
		if i > maxUnknown+n/2 && i%100 == 0 {
			line++
			c.add(matcher.Occurrence{ID: matcher.UnknownTraceback, Exception: "ValueError", Message: "late and frequent " + letters(i%3), Line: line, Rank: "TP1"}, 0)
		}
	}
	total := 0
	var fams, frequent []*Finding
	for _, f := range c.findings {
		total += f.Count
		if f.Folded > 0 {
			fams = append(fams, f)
		}
		if strings.HasPrefix(f.Message, "late and frequent") {
			frequent = append(frequent, f)
		}
	}
	if want := int(line); total != want {
		t.Errorf("findings count %d occurrences; want %d", total, want)
	}
	if len(c.findings) > maxUnknown+maxPromoted+maxFamilies || len(c.fold.tracked) > maxTracked {
		t.Errorf("%d findings, %d tracked: not bounded", len(c.findings), len(c.fold.tracked))
	}
	if len(frequent) != 3 {
		t.Fatalf("%d findings of the frequent late messages; want 3, each its own", len(frequent))
	}
	for _, f := range frequent {
		if f.Count < 160 || f.Folded != 0 || f.Ranks[0] != "TP1" {
			t.Errorf("frequent %q: ×%d, folded %d, ranks %v; want about 166 occurrences of its own on TP1", f.Message, f.Count, f.Folded, f.Ranks)
		}
	}
	if len(fams) != 1 || fams[0].Folded < n*95/100 || fams[0].Folded > n*105/100 {
		t.Errorf("families %v; want one of about %d distinct messages", fams, n)
	}
}

// letters spells i without digits, so that masking keeps messages apart.
func letters(i int) string {
	b := []byte{}
	for {
		b = append(b, byte('g'+i%20))
		if i /= 20; i == 0 {
			return string(b)
		}
	}
}

// Past maxFamilies exception classes, an unrecognised error's family is
// its id alone.
func TestFamiliesAreBounded(t *testing.T) {
	c := newCorrelator()
	for i := range maxUnknown + maxFamilies + 20 {
		c.add(matcher.Occurrence{ID: matcher.UnknownTraceback, Exception: "E" + letters(i) + "Error", Message: "x", Line: int64(i + 1)}, 0)
	}
	if len(c.fold.families) != maxFamilies+1 {
		t.Errorf("%d families; want %d and one of the id alone", len(c.fold.families), maxFamilies+1)
	}
	if f := c.fold.families[famKey{id: matcher.UnknownTraceback}]; f == nil || f.f.Folded != 20 {
		t.Errorf("the family of the id alone: %v; want 20 distinct", f != nil && f.f != nil)
	}
}

// The sketch counts distinct strings: exactly while they are few, within
// a few percent after.
func TestSketch(t *testing.T) {
	for _, n := range []int{0, 1, 2, 63, 64, 65, 200, 1000, 5000, 30000, 300000} {
		var s sketch
		for i := range n {
			s.add(letters(i))
			s.add(letters(i)) // a repeat is not another
		}
		got := s.estimate()
		tol := 0
		if n > sketchExact {
			tol = max(2, n*6/100)
		}
		if got < n-tol || got > n+tol {
			t.Errorf("%d distinct: estimated %d", n, got)
		}
	}
}

// appendMaskNumbers masks what the reference regexp masks.
func TestMaskNumbersAgreesWithTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`0x[0-9a-fA-F]+|\b[0-9a-f]{8,}\b|\d+`)
	cases := []string{
		"Failed to register memory 0x7c0ab6000000: Bad address [14]",
		"request 3f2a9c1d0e4b5a6f failed on rank 7", "deadbeef12g", "0x", "0xZ", "0XAB", "abcdef01",
		"x_deadbeef99", "ABCDEF0123", "v1.2.3-rc4", "", "日本 12 語",
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "0123456789abcdefxXABG _-.:"
	for range 5000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := string(appendMaskNumbers(nil, s)), re.ReplaceAllString(s, "N"); got != want {
			t.Fatalf("appendMaskNumbers(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestCompareRanks(t *testing.T) {
	rs := []string{"TP10", "TP2", "DP1 TP1", "TP1", "DP0 TP3"}
	slices.SortFunc(rs, compareRanks)
	want := []string{"DP0 TP3", "DP1 TP1", "TP1", "TP2", "TP10"}
	if !slices.Equal(rs, want) {
		t.Errorf("got %v, want %v", rs, want)
	}
}

// A wrapper is a root cause only when no cause comes before it in its
// input, nor right after it (the error it introduces, reported next).
func TestWrapperFollowsTheCauseItWraps(t *testing.T) {
	tests := []struct {
		name            string
		causeLine       int64
		causeSrc        int
		wantRoot        bool
		wantSymptomOf   string
		wrapper, endsAt int64
	}{
		{"a cause before it", 2, 0, false, "cause", 10, 12},
		{"the cause reported right after it", 14, 0, false, "cause", 10, 12},
		{"the cause right after it, a blank line between", 15, 0, false, "cause", 10, 12},
		{"an error well after it", 40, 0, true, "", 10, 12},
		{"an error right after it in another input", 14, 1, true, "", 10, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Finding{ID: "wrapper", key: "wrapper", Line: tt.wrapper, EndLine: tt.endsAt, wrapper: true,
				Severity: patterns.SeverityError, RootCause: true}
			c := &Finding{ID: "cause", key: "cause", src: tt.causeSrc, Line: tt.causeLine, EndLine: tt.causeLine,
				Severity: patterns.SeverityError, RootCause: true}
			order([]*Finding{w, c})
			if w.RootCause != tt.wantRoot || w.SymptomOf != tt.wantSymptomOf {
				t.Errorf("root %v, symptom of %q; want %v, %q", w.RootCause, w.SymptomOf, tt.wantRoot, tt.wantSymptomOf)
			}
		})
	}
}

// An unknown error line right next to a known cause is part of its
// incident; one further away, or next to another unknown error, is a
// cause of its own.
func TestUnknownErrorNextToAKnownCause(t *testing.T) {
	rec := &patterns.Record{ID: "known", Severity: patterns.SeverityError}
	tests := []struct {
		name      string
		knownLine int64
		known     bool
		wantRoot  bool
	}{
		{"the known cause right after it", 11, true, false},
		{"the known cause right before it", 8, true, false},
		{"the known cause far away", 40, true, true},
		{"another unknown error right after it", 11, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &Finding{ID: matcher.UnknownError, key: "u", Line: 10, EndLine: 10, Severity: patterns.SeverityError, RootCause: true}
			k := &Finding{ID: "known", key: "known", Line: tt.knownLine, EndLine: tt.knownLine, Severity: patterns.SeverityError, RootCause: true}
			if tt.known {
				k.Record = rec
			} else {
				k.ID, k.key = matcher.UnknownError, "u2"
			}
			order([]*Finding{u, k})
			if u.RootCause != tt.wantRoot {
				t.Errorf("root cause %v, want %v (symptom of %q)", u.RootCause, tt.wantRoot, u.SymptomOf)
			}
		})
	}
}

// An error no record knows that comes as the server goes down after a
// known cause (a thread's traceback once the SIGQUIT tore the processes
// down) follows from that cause; one long after, or with no known cause
// before the teardown, is a cause of its own.
func TestUnknownErrorInTheTeardown(t *testing.T) {
	known := &patterns.Record{ID: "known", Severity: patterns.SeverityError}
	symptom := &patterns.Record{ID: "sigquit", Severity: patterns.SeverityError, Role: patterns.RoleSymptom}
	tests := []struct {
		name        string
		causeLine   int64
		causeRecord bool
		unknownLine int64
		wantRoot    bool
	}{
		{"soon after the teardown began", 10, true, 60, false},
		{"long after, a run of its own", 10, true, 200, true},
		{"before the teardown", 10, true, 45, true},
		{"no known cause before the teardown", 10, false, 60, true},
		{"the cause after the symptom", 55, true, 60, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Finding{ID: "known", key: "known", Line: tt.causeLine, EndLine: tt.causeLine + 5, Severity: patterns.SeverityError, RootCause: true}
			if tt.causeRecord {
				c.Record = known
			} else {
				c.ID, c.key = matcher.UnknownTraceback, "u0"
			}
			y := &Finding{ID: "sigquit", key: "sigquit", Record: symptom, Line: 50, EndLine: 50, Severity: patterns.SeverityError}
			u := &Finding{ID: matcher.UnknownTraceback, key: "u", Exception: "zmq.error.ContextTerminated", Line: tt.unknownLine, EndLine: tt.unknownLine + 8, Severity: patterns.SeverityError, RootCause: true}
			order([]*Finding{c, y, u})
			if u.RootCause != tt.wantRoot {
				t.Errorf("root cause %v, want %v (symptom of %q)", u.RootCause, tt.wantRoot, u.SymptomOf)
			}
		})
	}
}

// After a stop that was asked for, the children ending and the SIGQUIT
// after them are the shutdown; an error of their own between the stop and
// them keeps them errors.
func TestSymptomsOfAStopAreQuiet(t *testing.T) {
	stopRec := &patterns.Record{ID: "stop", Severity: patterns.SeverityInfo, Tags: []string{patterns.TagShutdown}}
	symRec := &patterns.Record{ID: "sym", Severity: patterns.SeverityError, Role: patterns.RoleSymptom}
	errRec := &patterns.Record{ID: "err", Severity: patterns.SeverityError}
	tests := []struct {
		name     string
		stopLine int64
		errLine  int64 // 0: none
		want     patterns.Severity
	}{
		{"right after the stop", 10, 0, patterns.SeverityInfo},
		{"an error between", 10, 11, patterns.SeverityError},
		{"an error before the stop", 10, 5, patterns.SeverityInfo},
		{"the stop after it", 20, 0, patterns.SeverityError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop := &Finding{ID: "stop", key: "stop", Record: stopRec, Line: tt.stopLine, EndLine: tt.stopLine, Severity: patterns.SeverityInfo, RootCause: true, stop: true}
			sym := &Finding{ID: "sym", key: "sym", Record: symRec, Line: 12, EndLine: 12, Severity: patterns.SeverityError}
			fs := []*Finding{stop, sym}
			if tt.errLine > 0 {
				fs = append(fs, &Finding{ID: "err", key: "err", Record: errRec, Line: tt.errLine, EndLine: tt.errLine, Severity: patterns.SeverityError, RootCause: true})
			}
			order(fs)
			if sym.Severity != tt.want {
				t.Errorf("severity %v, want %v (symptom of %q)", sym.Severity, tt.want, sym.SymptomOf)
			}
			order(fs) // ordered again, as a live report is: the same
			if sym.Severity != tt.want {
				t.Errorf("ordered again: severity %v, want %v", sym.Severity, tt.want)
			}
		})
	}
}

// A line no record knows that only says something failed is a warning when
// the server came up and served after it; before a notice that never
// comes, or after the last one, it stays an error, and so does a traceback.
func TestUnknownLineBeforeTheServerCameUp(t *testing.T) {
	m := testMatcher(t)
	const failed = "[2026-05-25 18:18:12] Failed to get device capability: nvcc not found.\n"
	const ready = "[2026-05-25 18:19:00] The server is fired up and ready to roll!\n"
	const tb = "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nValueError: bad\n"
	tests := []struct {
		name, log string
		want      patterns.Severity
	}{
		{"the server came up after it", failed + ready, patterns.SeverityWarning},
		{"it never came up", failed, patterns.SeverityError},
		{"it failed after it came up", ready + failed, patterns.SeverityError},
		{"once before and once after it came up", failed + ready + failed, patterns.SeverityError},
		{"a traceback before it came up", tb + ready, patterns.SeverityError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantOneAt(t, m, tt.log, tt.want) })
	}
}

// wantOneAt checks that a log gives one finding, at severity want.
func wantOneAt(t *testing.T, m *matcher.Matcher, log string, want patterns.Severity) {
	t.Helper()
	fs := scanText(t, m, log).Findings()
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1:\n%s", len(fs), listFindings(fs))
	}
	if fs[0].Severity != want {
		t.Errorf("%s at %v, want %v", fs[0].ID, fs[0].Severity, want)
	}
}

// A wrapper does not follow from a line no record knows that only says it
// failed, nor is a symptom blamed on such a line while a stronger cause is
// in the report.
func TestBareLineIsNoCauseOfRecordsErrors(t *testing.T) {
	wrapRec := &patterns.Record{ID: "wrap", Severity: patterns.SeverityError, Role: patterns.RoleWrapper}
	symRec := &patterns.Record{ID: "sym", Severity: patterns.SeverityError, Role: patterns.RoleSymptom}
	bareLine := &Finding{ID: matcher.UnknownError, key: "u", Line: 71, EndLine: 71, Severity: patterns.SeverityError, RootCause: true}
	wrap := &Finding{ID: "wrap", key: "wrap", Record: wrapRec, Line: 75, EndLine: 80, Severity: patterns.SeverityError, RootCause: true, wrapper: true}
	sym := &Finding{ID: "sym", key: "sym", Record: symRec, Line: 90, EndLine: 90, Severity: patterns.SeverityError}
	order([]*Finding{bareLine, wrap, sym})
	if !wrap.RootCause {
		t.Errorf("the wrapper follows from %q", wrap.SymptomOf)
	}
	if sym.SymptomOf != "wrap" {
		t.Errorf("the symptom follows from %q, want wrap", sym.SymptomOf)
	}
}

// A bare exception line that repeats a traceback's last line (another
// rank's traceback whose frames were cut away, a launcher echoing its
// child) is that traceback's error again, known or not; one that differs
// in more than its numbers, or that came first, is its own.
func TestBareExceptionLineJoinsItsTraceback(t *testing.T) {
	m := testMatcher(t)
	tb := func(rank int, exc string) string {
		return fmt.Sprintf("[2026-11-29 10:15:02 TP%d] Scheduler hit an exception: Traceback (most recent call last):\n"+
			"  File \"/sgl/python/sglang/srt/a.py\", line 1, in f\n%s\n\n", rank, exc)
	}
	const attr = "AttributeError: 'CustomAllreduce' object has no attribute 'original_disabled'"
	tests := []struct {
		name, log, want string
	}{
		{"unknown traceback, then its line", tb(0, attr) + attr + "\n",
			"unknown/traceback ×2\n"},
		{"ranks differ in numbers", tb(0, "ValueError: rank 0 got 12 blocks") + "ValueError: rank 3 got 40 blocks\n",
			"unknown/traceback ×2\n"},
		{"known traceback, then its line", tb(1, "torch.OutOfMemoryError: CUDA out of memory.") +
			"torch.OutOfMemoryError: CUDA out of memory.\n",
			"t/oom ×2\n"},
		{"another message", tb(0, attr) + "AttributeError: 'CustomAllreduce' object has no attribute 'graph'\n",
			"unknown/traceback ×1\nunknown/error ×1\n"},
		{"another class", tb(0, attr) + "TypeError: 'CustomAllreduce' object has no attribute 'original_disabled'\n",
			"unknown/traceback ×1\nunknown/error ×1\n"},
		{"the line before the traceback", attr + "\n" + tb(0, attr),
			"unknown/traceback ×1\nunknown/error ×1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			for _, f := range scanText(t, m, tt.log).Findings() {
				fmt.Fprintf(&got, "%s ×%d\n", f.ID, f.Count)
			}
			if got.String() != tt.want {
				t.Errorf("findings:\n%swant:\n%s", got.String(), tt.want)
			}
		})
	}
}

// A rank's traceback head whose frames and exception went to the traceback
// another rank began on the next line follows from that one; a head the
// log ends after, or one apart from any other traceback, is a cut
// traceback of its own.
func TestInterleavedHeadFollowsTheTracebackBesideIt(t *testing.T) {
	m := testMatcher(t)
	head := func(r int) string {
		return fmt.Sprintf("[2026-11-29 10:15:02 TP%d] Scheduler hit an exception: Traceback (most recent call last):\n", r)
	}
	const rest = "  File \"a.py\", line 1, in f\ntorch.OutOfMemoryError: CUDA out of memory.\n\n"
	tests := []struct {
		name, log, want string
	}{
		{"next line", head(0) + head(1) + rest,
			"t/oom root\nunknown/traceback symptom partial\n"},
		{"after a blank line", head(0) + "\n" + head(1) + rest,
			"t/oom root\nunknown/traceback symptom partial\n"},
		{"the log ends after it", head(1) + rest + head(0),
			"t/oom root\nunknown/traceback root partial\n"},
		{"apart from the others", head(0) + "[2026-11-29 10:15:02] Load weight begin.\n\n\n" + head(1) + rest,
			"t/oom root\nunknown/traceback root partial\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			for _, f := range scanText(t, m, tt.log).Findings() {
				role := "root"
				if !f.RootCause {
					role = "symptom"
				}
				if f.Partial {
					role += " partial"
				}
				fmt.Fprintf(&got, "%s %s\n", f.ID, role)
			}
			if got.String() != tt.want {
				t.Errorf("findings:\n%swant:\n%s", got.String(), tt.want)
			}
		})
	}
}

// sglang's notice that it skipped one of its model classes at start-up is
// a warning, whatever the import error it quotes: a server of another
// model carries on. The same error outside that notice stays an error.
func TestSkippedModelClassIsAWarning(t *testing.T) {
	m := testMatcher(t)
	tests := []struct {
		name, log string
		want      patterns.Severity
	}{
		{"the skip notice", "[2026-05-25 18:18:12] Ignore import error when loading sglang.srt.models.qwen3_next: libnuma.so.1: cannot open shared object file: No such file or directory\n", patterns.SeverityWarning},
		{"the same error on its own", "[2026-05-25 18:18:12] OSError: libnuma.so.1: cannot open shared object file: No such file or directory\n", patterns.SeverityError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantOneAt(t, m, tt.log, tt.want) })
	}
}

// A client's error with no server error in the report heads the symptoms
// that follow from it (the benchmark's crash on an empty list of
// latencies), rather than following from one of them.
func TestDownstreamErrorWithNoCauseHeadsItsSymptoms(t *testing.T) {
	clientRec := &patterns.Record{ID: "client", Severity: patterns.SeverityError, Role: patterns.RoleSymptom, Tags: []string{patterns.TagDownstream}}
	benchRec := &patterns.Record{ID: "bench", Severity: patterns.SeverityError, Role: patterns.RoleSymptom, Follows: []string{"client"}}
	client := &Finding{ID: "client", key: "client", Record: clientRec, Line: 1, EndLine: 1, Severity: patterns.SeverityError, downstream: true}
	bench := &Finding{ID: "bench", key: "bench", Record: benchRec, Line: 27, EndLine: 54, Severity: patterns.SeverityError}
	fs := []*Finding{bench, client}
	order(fs)
	if fs[0] != client {
		t.Errorf("first %s, want client:\n%s", fs[0].ID, listFindings(fs))
	}
	if bench.SymptomOf != "client" {
		t.Errorf("bench follows from %q, want client", bench.SymptomOf)
	}
	if client.SymptomOf != "" {
		t.Errorf("client follows from %q, want nothing", client.SymptomOf)
	}
}

// A router's error yields to a server's error, not to a symptom of one
// (a child's SIGQUIT notice): with no server error in the report, it is
// the cause.
func TestDownstreamErrorDoesNotYieldToASymptom(t *testing.T) {
	routerRec := &patterns.Record{ID: "router", Severity: patterns.SeverityError, Tags: []string{patterns.TagDownstream}}
	symRec := &patterns.Record{ID: "sym", Severity: patterns.SeverityError, Role: patterns.RoleSymptom}
	router := &Finding{ID: "router", key: "router", Record: routerRec, Line: 3, EndLine: 3, Severity: patterns.SeverityError, RootCause: true, downstream: true}
	sym := &Finding{ID: "sym", key: "sym", Record: symRec, Line: 9, EndLine: 9, Severity: patterns.SeverityError}
	fs := []*Finding{router, sym}
	order(fs)
	if !router.RootCause {
		t.Errorf("the router's error follows from %q", router.SymptomOf)
	}
}
