package matcher

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// builtinMatcher returns the built-in pack compiled, once for all tests: a
// Matcher is read-only once compiled, and compiling the whole pack is the
// slowest step of the tests under the race detector.
func builtinMatcher(t testing.TB) *Matcher {
	t.Helper()
	m, err := sharedBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var sharedBuiltin = sync.OnceValues(func() (*Matcher, error) {
	pack, err := patterns.Builtin()
	if err != nil {
		return nil, err
	}
	return Compile(pack)
})

// naiveMatch is the reference the automaton must agree with: every record's
// literal or regexp tried on the normalized message, one by one.
func naiveMatch(pack *patterns.Pack, res map[string]*regexp.Regexp, line []byte) []*patterns.Record {
	msg := Normalize(nil, line)
	_, msg = SplitHeader(msg)
	var out []*patterns.Record
	for _, r := range pack.Records {
		var ok bool
		switch {
		case r.Match.Frame != "":
			ok = res[r.ID].Match(msg)
		case r.Match.Message != "":
			ok = bytes.Contains(msg, []byte(r.Match.Message))
		default:
			ok = res[r.ID].Match(msg)
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

func sameRecords(a, b []*patterns.Record) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		if !slices.Contains(b, r) {
			return false
		}
	}
	return true
}

func ids(rs []*patterns.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// FuzzMatchLineDifferential proves the prefilter drops no match: for any
// line, the automaton-driven MatchLine finds exactly what the naive loop
// over all records finds.
func FuzzMatchLineDifferential(f *testing.F) {
	// Every hand-written record and one generated record in twenty: the
	// naive loop over all ten thousand would make each input slow, and
	// the sample exercises both automata just the same.
	full, err := patterns.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	var sample []*patterns.Record
	for i, r := range full.Records {
		if r.Gen == nil || i%20 == 0 {
			sample = append(sample, r)
		}
	}
	pack, err := patterns.NewPack(sample)
	if err != nil {
		f.Fatal(err)
	}
	m, err := Compile(pack)
	if err != nil {
		f.Fatal(err)
	}
	res := map[string]*regexp.Regexp{}
	for i, r := range pack.Records {
		switch {
		case r.Match.Frame != "":
			res[r.ID] = regexp.MustCompile(r.Match.Frame)
		case r.Match.Regex != "":
			res[r.ID] = regexp.MustCompile(r.Match.Regex)
		}
		if r.Gen != nil && i%5 != 0 {
			continue // a fifth of the sampled generated records' lines
		}
		for i, l := range append(slices.Clone(r.Tests.Match), r.Tests.NoMatch...) {
			f.Add([]byte(l))
			if i != 0 && i != len(r.Tests.Match) {
				// The variants of a record's first line and first near
				// miss: every line of every record in every shape would
				// make the naive loop the slowest test of all.
				continue
			}
			f.Add([]byte("[2026-08-28 10:15:20 TP3] " + l))
			// An escape inside the needle: only the normalized view matches.
			if len(l) > 10 {
				f.Add([]byte(l[:len(l)/2] + "\x1b[1m" + l[len(l)/2:] + "\x1b[0m\r"))
				f.Add([]byte(l[:len(l)/2] + "#033[1m" + l[len(l)/2:] + "#033[0m"))
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			line = line[:bytes.IndexByte(line, '\n')]
		}
		got := m.MatchLine(line)
		want := naiveMatch(pack, res, line)
		if !sameRecords(got, want) {
			t.Fatalf("line %q: automaton found %v, naive loop found %v", line, ids(got), ids(want))
		}
	})
}

// TestBuiltinRecordTests runs every built-in record's own tests.
func TestBuiltinRecordTests(t *testing.T) {
	m := builtinMatcher(t)
	for _, r := range m.Pack().Records {
		for _, l := range r.Tests.Match {
			if !slices.Contains(m.MatchLine([]byte(l)), r) {
				t.Errorf("%s: %s does not match %q", r.Origin, r.ID, l)
			}
		}
		for _, l := range r.Tests.NoMatch {
			if slices.Contains(m.MatchLine([]byte(l)), r) {
				t.Errorf("%s: %s matches its near miss %q", r.Origin, r.ID, l)
			}
		}
	}
}

// Nothing allocates per non-matching line, fed one line at a time as the
// live modes do, or in blocks as scan does.
func TestNoAllocationPerNonMatchingLine(t *testing.T) {
	m := builtinMatcher(t)
	lines := []string{
		"[2026-08-28 10:15:27 TP0] Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0\n",
		"[2026-08-28 10:15:28] INFO:     127.0.0.1:51640 - \"POST /generate HTTP/1.1\" 200 OK\n",
		"Capturing batches (bs=32 avail_mem=13.05 GB): 100%|██████████| 7/7 [00:03<00:00,  2.10it/s]\r\n",
		"\x1b[32m[2026-08-28 10:15:27 DP1 TP1 EP1] Decode batch, #running-req: 12, #token: 2048, gen throughput (token/s): 812.5\x1b[0m\n",
		// Candidates that confirm nothing: a glog info line, a torch
		// warning, compose and kubectl prefixes.
		"I1129 10:01:02.553695 67580 transfer_engine.cpp:53] Transfer Engine starting\n",
		"[rank2]:[W1129 10:15:02.104512039 ProcessGroupNCCL.cpp:1496] Warning: benign\n",
		"llm-decode-0  | 2026-11-29T10:15:02.123Z [2026-11-29 10:15:02 TP0] Decode batch, #running-req: 3, token usage: 0.12\n",
	}
	e := m.NewEngine("x", func(Occurrence) { t.Fatal("unexpected occurrence") })
	for _, l := range lines {
		b := []byte(l)
		e.Write(b) // warm the scratch buffers
		if n := testing.AllocsPerRun(200, func() { e.Write(b) }); n != 0 {
			t.Errorf("Write(%q): %v allocations per line, want 0", l, n)
		}
	}
	// Words of failure that say nothing went wrong: the automaton proposes
	// the line and the check rejects it. The automaton's list of hits is
	// its one allocation per search, made in a few steps as it grows, and
	// a block is searched a piece (searchPiece) at a time, so fed in
	// blocks the cost is per piece of about a hundred lines, not per line.
	words := []byte(strings.Repeat("[2026-11-29 10:15:02 TP0] Decode batch, error_rate=0.00, # of errors: 0, fail_count=0, nan_check=False\n", 1000))
	e.Write(words)
	pieces := len(words)/searchPiece + 1
	if n := testing.AllocsPerRun(20, func() { e.Write(words) }); n > float64(20*pieces) {
		t.Errorf("Write(block of 1000 lines proposed for their words): %v allocations, want at most %d (20 a piece)", n, 20*pieces)
	}
	block := []byte(strings.Repeat(strings.Join(lines, ""), 1000))
	e.Write(block)
	if n := testing.AllocsPerRun(20, func() { e.Write(block) }); n != 0 {
		t.Errorf("Write(block of %d lines): %v allocations, want 0", 1000*len(lines), n)
	}
}

// TestGeneratedWrapperAloneIsReadByItsWords: a line a generated wrapper
// matches ("RuntimeError {e}." from sglang's frontend) with no exception
// after it to carry is still an error by its own words.
func TestGeneratedWrapperAloneIsReadByItsWords(t *testing.T) {
	m := builtinMatcher(t)
	got := brief(occurrences(t, m, "RuntimeError in llava image encoding: The expanded size of the tensor (0) must match the existing size (2438) at non-singleton dimension 0.\n", 0))
	if !strings.HasPrefix(got, UnknownError+" 1-1 ") {
		t.Errorf("got %q, want an unknown error on line 1", got)
	}
}

// TestGeneratedWarningWrapperIsNoError: a line that a generated wrapper
// sglang logs as a warning matches ("Failed to import from custom_ar with
// {e!r}") is no error for the exception it carries.
func TestGeneratedWarningWrapperIsNoError(t *testing.T) {
	m := builtinMatcher(t)
	const line = `[2025-10-30 04:30:53 TP1] Failed to import from custom_ar with ModuleNotFoundError("No module named 'sgl_kernel'")` + "\n"
	if got := brief(occurrences(t, m, line, 0)); strings.Contains(got, UnknownError) {
		t.Errorf("got %q, want no unknown error", got)
	}
}

// A request logged with its prompt and its answer (--log-requests) carries
// what users and models wrote: a traceback or an error quoted there is no
// error of the server's, while the traceback the server prints after it
// still is.
func TestRequestLogQuotesNoError(t *testing.T) {
	m := builtinMatcher(t)
	const log = `[2026-01-02 10:00:01] Receive: obj=GenerateReqInput(text=None, messages=[{'role': 'user', 'content': 'Why does it fail? Traceback (most recent call last):\n  File "a.py", line 3\nRuntimeError: CUDA error: an illegal memory access was encountered'}], rid='a1')
[2026-01-02 10:00:02 TP0] Prefill batch. #new-seq: 1, #new-token: 57, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0
[2026-01-02 10:00:03] Finish: obj=GenerateReqInput(rid='a1'), out={'text': 'Segmentation fault (core dumped) means the process crashed', 'meta_info': {'id': 'a1'}}
`
	if got := brief(occurrences(t, m, log, 0)); got != "" {
		t.Errorf("request log: got\n%s want no finding", got)
	}
	const crash = `[2026-01-02 10:00:04 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py", line 2950, in run_scheduler_process
    scheduler.event_loop_normal()
RuntimeError: CUDA error: an illegal memory access was encountered
`
	if got := brief(occurrences(t, m, log+crash, 0)); !strings.Contains(got, "torch/cuda-illegal-memory-access 4-7") {
		t.Errorf("request log, then a crash: got\n%s want the crash at lines 4-7", got)
	}
}
