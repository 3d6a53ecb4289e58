package patterns

import (
	"fmt"
	"strings"
	"testing"
)

// buildRecords runs the builder over sites of one tree and reads its table
// back, as `patterns learn` does.
func buildRecords(t *testing.T, sites []RaiseSite, flags *FlagTable, repo string) ([]*Record, BuildStats) {
	t.Helper()
	msgs, _ := Messages(sites, "python/sglang/")
	table, st := BuildTable(msgs, flags, TableSource{Repo: repo})
	recs, err := ReadSites("learned/sites.tsv", table)
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

// A message raised both by sglang's diffusion runtime and by the server
// names the server's site (multimodal_gen sorts before srt, and lines of
// either are the server's), and counts both; a message that only repeats
// Python's own (a __getattr__'s "'X' object has no attribute 'y'") would
// claim every AttributeError of any code, and makes no record.
func TestBuildNamesTheServerSite(t *testing.T) {
	sites := []RaiseSite{
		{File: "multimodal_gen/runtime/distributed/utils.py", Line: 28, Function: "ensure_divisibility", Kind: "assert", Class: "AssertionError",
			Message: "{} is not divisible by {}", Regex: `.*? is not divisible by .*?`, Condition: "numerator % denominator == 0"},
		{File: "srt/distributed/utils.py", Line: 55, Function: "ensure_divisibility", Kind: "assert", Class: "AssertionError",
			Message: "{} is not divisible by {}", Regex: `.*? is not divisible by .*?`, Condition: "numerator % denominator == 0"},
		{File: "srt/managers/schedule_batch.py", Line: 364, Function: "Req.__getattr__", Kind: "raise", Class: "AttributeError",
			Message: "'{self.__class__.__name__}' object has no attribute '{name}'", Regex: `'.*?' object has no attribute '.*?'`},
		{File: "multimodal_gen/runtime/launch_server.py", Line: 274, Function: "launch_server", Kind: "logger.error",
			Message: "Rank {rank_offset + i} scheduler is dead. Please check if there are relevant logs.",
			Regex:   `Rank .*? scheduler is dead\. Please check if there are relevant logs\.`},
	}
	recs, st := buildRecords(t, sites, nil, "sgl-project/sglang")
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s %s:%d sites=%d guard=%s", r.ID, r.Where.File, r.Where.Line, r.Gen.Sites, r.Gen.Guard))
	}
	want := []string{
		// Only the diffusion runtime logs this one: its site names it.
		"sglang-src/multimodal_gen.runtime.launch_server/rank-scheduler-is-dead-please-check python/sglang/multimodal_gen/runtime/launch_server.py:274 sites=1 guard=",
		"sglang-src/srt.distributed.utils/is-not-divisible-by python/sglang/srt/distributed/utils.py:55 sites=2 guard=not (numerator % denominator == 0)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st.Skipped[skipPython] != 1 || st.Records != 2 || st.Current != 4 {
		t.Errorf("stats %+v", st)
	}
}

// The builder's rules, one message at a time.
func TestBuildRules(t *testing.T) {
	flags := NewFlagTable([]*Flag{{Names: []string{"--tp-size", "--tp"}, Dest: "tp_size"}, {Names: []string{"--mem-fraction-static"}, Dest: "mem_fraction_static"}}, "0.5.9")
	tests := []struct {
		name string
		m    Message
		want string // severity role flags title, or the reason it is left out
	}{
		{"raised", Message{Kind: "raise", Class: "ValueError", Regex: `tp_size .*? must divide the heads`, Template: "tp_size {n} must divide the heads"},
			"error cause [--tp-size] ValueError: tp_size … must divide the heads"},
		{"the error is what fills it", Message{Kind: "logger.error", Regex: `Scheduler hit an exception: .*?`, Template: "Scheduler hit an exception: {e}"},
			"error wrapper [] Scheduler hit an exception: …"},
		{"a flag by name", Message{Kind: "logger.warning", Regex: `Consider lowering --mem-fraction-static\.`, Template: "Consider lowering --mem-fraction-static."},
			"warning cause [--mem-fraction-static] Consider lowering --mem-fraction-static."},
		{"a warning only older releases print is known, no finding", Message{Kind: "logger.warning", Regex: `The old scheduler is deprecated now`, Template: "The old scheduler is deprecated now", Last: "0.4.6"},
			"info cause [] The old scheduler is deprecated now"},
		{"critical", Message{Kind: "logger.critical", Regex: `Scheduler crashed with .*?`, Template: "Scheduler crashed with {e}"},
			"fatal wrapper [] Scheduler crashed with …"},
		{"a child that ended", Message{Kind: "raise", Class: "RuntimeError", Regex: `Detokenizer process terminated`, Template: "Detokenizer process terminated", Guard: "not proc.is_alive()"},
			"error symptom [] RuntimeError: Detokenizer process terminated"},
		{"too generic", Message{Kind: "raise", Class: "ValueError", Regex: `Unknown .*?`, Template: "Unknown {x}"}, "left out: " + skipGeneric},
		{"eleven bytes of text", Message{Kind: "raise", Regex: `abcdefghij .*? x`, Template: "abcdefghij {x} x"}, "left out: " + skipGeneric},
		{"twelve", Message{Kind: "raise", Regex: `abcdefghijk .*? x`, Template: "abcdefghijk {x} x"}, "error cause [] abcdefghijk … x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			m.File, m.Line, m.Function, m.Sites = "python/sglang/srt/x.py", 7, "Engine.step", 1
			table, st := BuildTable([]Message{m}, flags, TableSource{})
			recs, err := ReadSites("t.tsv", table)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(recs) == 1 {
				r := recs[0]
				got = fmt.Sprintf("%s %s %v %s", r.Severity, r.Role, r.Gen.Flags, r.Title)
				if r.Gen.Flags == nil {
					got = fmt.Sprintf("%s %s [] %s", r.Severity, r.Role, r.Title)
				}
				if r.Where.Repo != "" || r.Where.Function != "step" || r.Gen.Qualname != "Engine.step" || r.Gen.LastRelease != m.Last {
					t.Errorf("where %+v, qualname %q, last %q", r.Where, r.Gen.Qualname, r.Gen.LastRelease)
				}
				if len(r.Tests.Match) != 1 || len(r.Tests.NoMatch) != 1 {
					t.Errorf("tests %+v", r.Tests)
				}
			} else {
				for reason := range st.Skipped {
					got = "left out: " + reason
				}
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Every record the builder writes passes its own tests: its sample matches
// and its near miss does not.
func TestBuildSamplesAndNearMisses(t *testing.T) {
	msgs := []Message{
		{Kind: "raise", Class: "RuntimeError", Regex: `Not enough memory\. Please try to increase --mem-fraction-static\. .*?`, Template: "Not enough memory. Please try to increase --mem-fraction-static. {x}", File: "python/sglang/srt/a.py", Sites: 1},
		{Kind: "assert", Class: "AssertionError", Regex: `page_size .*? must divide chunked_prefill_size`, Template: "page_size {p} must divide chunked_prefill_size", File: "python/sglang/srt/b.py", Sites: 1},
	}
	table, _ := BuildTable(msgs, nil, TableSource{Repo: "sgl-project/sglang"})
	recs, err := ReadSites("t.tsv", table)
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for _, r := range recs {
		re, _, err := r.Compiled()
		if err != nil {
			t.Fatal(err)
		}
		msg := func(line string) string {
			if _, m, ok := strings.Cut(line, ": "); ok && strings.HasSuffix(r.Match.Exception, "Error") {
				return m
			}
			return line
		}
		if !re.MatchString(msg(r.Tests.Match[0])) || re.MatchString(msg(r.Tests.NoMatch[0])) {
			t.Errorf("%s: sample %q, near miss %q", r.ID, r.Tests.Match[0], r.Tests.NoMatch[0])
		}
		if r.Where.Repo != "sgl-project/sglang" {
			t.Errorf("%s: repo %q", r.ID, r.Where.Repo)
		}
	}
}

func TestReadSitesRefusesOtherTables(t *testing.T) {
	if _, err := ReadSites("x.tsv", []byte("a\tb\n")); err == nil || !strings.Contains(err.Error(), "x.tsv: not a table of generated records") {
		t.Errorf("got %v", err)
	}
	if _, err := ReadSites("x.tsv", []byte(SitesHeader+"\nid\terror\n")); err == nil || !strings.Contains(err.Error(), "x.tsv:2: 2 fields, want 22") {
		t.Errorf("got %v", err)
	}
}
