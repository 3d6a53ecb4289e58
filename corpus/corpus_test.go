package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/patterns"
)

// scoreLog is a log whose CUDA OOM is on line 3, in an event of lines 1-3,
// with an ANSI colour around the message the matching view drops.
const scoreLog = "[2026-11-29 10:15:02 TP1] Scheduler hit an exception: Traceback (most recent call last):\n" +
	"  File \"/x/model_runner.py\", line 1090, in load_model\n" +
	"torch.OutOfMemoryError: \x1b[31mCUDA out of memory\x1b[0m. Tried to allocate 2.00 GiB.\n" +
	"\n" +
	"[2026-11-29 10:15:02] Received sigquit from a child process. It usually means the child failed.\n"

func TestScore(t *testing.T) {
	hand := &patterns.Record{ID: "torch/cuda-oom"}
	gen := &patterns.Record{ID: "sglang/gen-oom", Gen: &patterns.Generated{}}
	oom := func(rec *patterns.Record) *diagnose.Finding {
		return &diagnose.Finding{ID: "torch/cuda-oom", Severity: patterns.SeverityError, Record: rec,
			Exception: "torch.OutOfMemoryError", Message: "CUDA out of memory. Tried to allocate 2.00 GiB.", Line: 1, EndLine: 3}
	}
	sigquit := &diagnose.Finding{ID: "sglang/child-failed-sigquit", Severity: patterns.SeverityError, Record: hand,
		Message: "Received sigquit from a child process.", Line: 5, EndLine: 5}
	warning := &diagnose.Finding{ID: "w", Severity: patterns.SeverityWarning, Exception: "torch.OutOfMemoryError", Line: 1, EndLine: 3}
	unknown := func(exc, msg string) *diagnose.Finding {
		return &diagnose.Finding{ID: "unknown", Severity: patterns.SeverityError, Exception: exc, Message: msg, Line: 1, EndLine: 1}
	}
	errCase := func(exc, msg string) Case {
		return Case{File: "x.log", Kind: KindError, ExpectedException: exc, ExpectedMessage: msg}
	}
	clean := Case{File: "x.log", Kind: KindClean}

	tests := []struct {
		name     string
		c        Case
		log      string
		findings []*diagnose.Finding
		want     Result
		verdict  string
	}{
		{"clean log, no finding", clean, scoreLog, nil,
			Result{}, "quiet"},
		{"clean log, a warning is no false alarm", clean, scoreLog, []*diagnose.Finding{warning},
			Result{First: "w torch.OutOfMemoryError: "}, "quiet"},
		{"clean log, an error is a false alarm", clean, scoreLog, []*diagnose.Finding{sigquit},
			Result{FalseAlarm: true, First: "sglang/child-failed-sigquit : Received sigquit from a child process."}, "FALSE ALARM"},
		{"the event holds the key line, classes match without module", errCase("OutOfMemoryError", "CUDA out of memory"), scoreLog,
			[]*diagnose.Finding{oom(hand), sigquit},
			Result{Top1: true, AnyHit: true, KeyLineFound: true, Known: true, HandWritten: true}, "top-1"},
		{"an expected message copied with typographic quotes, from a log that has them", errCase("", "cannot import name ‘x’ from ‘y’"),
			"ok\nImportError: cannot import name ‘x’ from ‘y’\n",
			[]*diagnose.Finding{{ID: "p", Severity: patterns.SeverityError, Record: hand, Exception: "ImportError", Message: "cannot import name 'x' from 'y'", Line: 2, EndLine: 2}},
			Result{Top1: true, AnyHit: true, KeyLineFound: true, Known: true, HandWritten: true}, "top-1"},
		{"a generated record is known, not hand-written", errCase("torch.OutOfMemoryError", "CUDA out of memory"), scoreLog,
			[]*diagnose.Finding{oom(gen)},
			Result{Top1: true, AnyHit: true, KeyLineFound: true, Known: true}, "top-1"},
		{"an unknown error holds it but has no remedy", errCase("", "CUDA out of memory"), scoreLog,
			[]*diagnose.Finding{oom(nil)},
			Result{Top1: true, AnyHit: true, KeyLineFound: true}, "top-1"},
		{"another exception class does not hold it", errCase("RuntimeError", "CUDA out of memory"), scoreLog,
			[]*diagnose.Finding{oom(hand)},
			Result{KeyLineFound: true}, "MISSED"},
		{"a finding without exception is judged by its lines", errCase("RuntimeError", "Received sigquit"), scoreLog,
			[]*diagnose.Finding{sigquit},
			Result{Top1: true, AnyHit: true, KeyLineFound: true, Known: true, HandWritten: true}, "top-1"},
		{"the event must contain the key line", errCase("", "CUDA out of memory"), scoreLog,
			[]*diagnose.Finding{sigquit},
			Result{KeyLineFound: true}, "MISSED"},
		{"a later finding holds it", errCase("torch.OutOfMemoryError", "CUDA out of memory"), scoreLog,
			[]*diagnose.Finding{sigquit, oom(gen)},
			Result{AnyHit: true, KeyLineFound: true, Known: true}, "later"},
		{"with no error, the warning the report shows first holds it", errCase("torch.OutOfMemoryError", "CUDA out of memory"), scoreLog,
			[]*diagnose.Finding{warning},
			Result{Top1: true, AnyHit: true, KeyLineFound: true, First: "w torch.OutOfMemoryError: "}, "top-1"},
		{"errors come before warnings, whatever the order given", errCase("torch.OutOfMemoryError", "CUDA out of memory"), scoreLog,
			[]*diagnose.Finding{warning, oom(hand)},
			Result{Top1: true, AnyHit: true, KeyLineFound: true, Known: true, HandWritten: true}, "top-1"},
		{"a later occurrence of the finding holds the key line", errCase("", "Received sigquit"), scoreLog,
			[]*diagnose.Finding{{ID: "merged", Severity: patterns.SeverityError, Line: 1, EndLine: 3,
				Spans: []diagnose.Span{{Line: 1, EndLine: 3}, {Line: 5, EndLine: 5}}}},
			Result{Top1: true, AnyHit: true, KeyLineFound: true, First: "merged : "}, "top-1"},
		{"message not in the log: the finding's text contains it", errCase("", "out of memory. Tried"), "nothing here\n",
			[]*diagnose.Finding{oom(nil)},
			Result{Top1: true, AnyHit: true}, "top-1"},
		{"message not in the log: the class and message together", errCase("", "OutOfMemoryError: CUDA out"), "nothing here\n",
			[]*diagnose.Finding{oom(nil)},
			Result{Top1: true, AnyHit: true}, "top-1"},
		{"message not in the log: the message holds the finding's of 10 bytes", errCase("", "worker died: connection reset by peer (104)"), "nothing here\n",
			[]*diagnose.Finding{unknown("ConnectionResetError", "connection reset by peer")},
			Result{Top1: true, AnyHit: true}, "top-1"},
		{"message not in the log: a finding's message under 10 bytes is too short", errCase("", "worker died: timed out"), "nothing here\n",
			[]*diagnose.Finding{unknown("TimeoutError", "timed out")},
			Result{}, "MISSED"},
		{"message not in the log: another message", errCase("", "CUDA error: an illegal memory access"), "nothing here\n",
			[]*diagnose.Finding{oom(nil)},
			Result{}, "MISSED"},
		{"no message: an exception of the class holds it", errCase("ValueError", ""), "nothing here\n",
			[]*diagnose.Finding{unknown("builtins.ValueError", "bad")},
			Result{Top1: true, AnyHit: true}, "top-1"},
		{"no message: a finding without exception does not", errCase("ValueError", ""), "nothing here\n",
			[]*diagnose.Finding{unknown("", "ValueError somewhere")},
			Result{}, "MISSED"},
		{"an empty log", errCase("ValueError", "bad value"), "",
			nil,
			Result{}, "MISSED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			want.File, want.Kind = tt.c.File, tt.c.Kind
			if want.First == "" && tt.c.Kind == KindError {
				for _, f := range tt.findings {
					if f.Severity >= patterns.SeverityError {
						want.First = f.ID + " " + f.Exception + ": " + f.Message
						break
					}
				}
			}
			got := Score(tt.c, []byte(tt.log), tt.findings)
			if got != want {
				t.Errorf("Score =\n %+v, want\n %+v", got, want)
			}
			if v := got.Verdict(); v != tt.verdict {
				t.Errorf("Verdict = %q, want %q", v, tt.verdict)
			}
		})
	}
}

func TestKeyLines(t *testing.T) {
	tests := []struct {
		log, msg string
		want     []int64
	}{
		{scoreLog, "CUDA out of memory", []int64{3}},
		{scoreLog, "", nil},
		{"a\nb a\r\nlast a", "a", []int64{1, 2, 3}},
		{"progress 10%\rprogress done\n", "progress 10%", nil}, // the view keeps only what a terminal shows
		{"x\n", "y", nil},
	}
	for _, tt := range tests {
		got := keyLines([]byte(tt.log), tt.msg)
		if len(got) != len(tt.want) {
			t.Errorf("keyLines(%q, %q) = %v, want %v", tt.log, tt.msg, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("keyLines(%q, %q) = %v, want %v", tt.log, tt.msg, got, tt.want)
			}
		}
	}
}

func TestSummary(t *testing.T) {
	results := []Result{
		{Kind: KindError, Top1: true, AnyHit: true, KeyLineFound: true, Known: true, HandWritten: true},
		{Kind: KindError, AnyHit: true, KeyLineFound: true, Known: true},
		{Kind: KindError},
		{Kind: KindClean},
		{Kind: KindClean, FalseAlarm: true},
	}
	var s Summary
	for _, r := range results {
		s.Add(r)
	}
	want := Summary{Errors: 3, Top1: 1, AnyHit: 2, Clean: 2, FalseAlarms: 1, KeyLineAbsent: 1, Known: 2, HandWritten: 1}
	if s != want {
		t.Errorf("summary = %+v, want %+v", s, want)
	}
	if p := s.Top1Pct(); p < 33.3 || p > 33.4 {
		t.Errorf("Top1Pct = %v", p)
	}
	if p := (Summary{}).Top1Pct(); p != 100 {
		t.Errorf("Top1Pct of no errors = %v, want 100", p)
	}
	if _, ok := Percent(1, 0); ok {
		t.Error("Percent of 0 is ok")
	}
	if p, ok := Percent(1, 4); !ok || p != 25 {
		t.Errorf("Percent(1, 4) = %v, %v", p, ok)
	}
}

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name, text, err string
		n               int
	}{
		{"cases and blank lines", `{"file": "a.log", "kind": "error", "expected_exception": "ValueError", "expected_message": null}

{"file": "b.log", "kind": "clean"}
`, "", 2},
		{"message alone", `{"file": "a.log", "kind": "error", "expected_message": "bad"}`, "", 1},
		{"no file", `{"kind": "clean"}`, "manifest m.jsonl:1: no file", 0},
		{"unknown kind", "{\"file\": \"a.log\", \"kind\": \"clean\"}\n{\"file\": \"b.log\", \"kind\": \"broken\"}", `manifest m.jsonl:2: kind "broken" is neither error nor clean`, 0},
		{"error without expectation", `{"file": "a.log", "kind": "error", "expected_exception": null}`, "manifest m.jsonl:1: an error case needs expected_exception or expected_message", 0},
		{"not JSON", `{"file": `, "manifest m.jsonl:1: unexpected end of JSON input", 0},
		{"empty", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, err := ParseManifest(strings.NewReader(tt.text), "m.jsonl")
			switch {
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Errorf("error = %v, want %s", err, tt.err)
			case tt.err == "" && err != nil:
				t.Errorf("error = %v", err)
			case len(cases) != tt.n:
				t.Errorf("%d cases, want %d", len(cases), tt.n)
			}
		})
	}
}

func TestReadManifestMissing(t *testing.T) {
	name := filepath.Join(t.TempDir(), "none.jsonl")
	_, err := ReadManifest(name)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error = %v, want one that is fs.ErrNotExist", err)
	}
	if want := `cannot open manifest "` + name + `": no such file or directory`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// The grep baseline: the first line the grep prints is its top-1; a clean
// log with any such line is a false alarm; without the expected message
// in the log, the exception class stands for it.
func TestGrep(t *testing.T) {
	log := "[t] Load weight begin\n" +
		"[t] WARNING: failed to import optional module\n" +
		"Traceback (most recent call last):\n" +
		"  File \"x.py\", line 1, in f\n" +
		"ValueError: bad page size\n"
	tests := []struct {
		name string
		c    Case
		want string // top1 any-hit false-alarm
	}{
		{"a later line holds it", Case{Kind: KindError, ExpectedMessage: "bad page size"}, "false true false"},
		{"the first line holds it", Case{Kind: KindError, ExpectedMessage: "failed to import"}, "true true false"},
		{"an ungreppable key line", Case{Kind: KindError, ExpectedMessage: "Load weight begin"}, "false false false"},
		{"the exception when the message is absent", Case{Kind: KindError, ExpectedException: "ValueError", ExpectedMessage: "not in the log"}, "false false false"},
		{"the class alone", Case{Kind: KindError, ExpectedException: "ValueError"}, "false true false"},
		{"clean", Case{Kind: KindClean}, "false false true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Grep(tt.c, []byte(log))
			if got := fmt.Sprint(r.Top1, r.AnyHit, r.FalseAlarm); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	if r := Grep(Case{Kind: KindClean}, []byte("all good\nready\n")); r.FalseAlarm {
		t.Error("a log with no such line is a false alarm")
	}
}
