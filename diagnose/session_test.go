package diagnose

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailfix/tailfix/patterns"
)

// recorder keeps a live session's updates.
type recorder struct{ got []Update }

func (r *recorder) update(u Update) { r.got = append(r.got, u) }

func (r *recorder) String() string {
	var b strings.Builder
	for _, u := range r.got {
		kind := [...]string{"found", "provisional", "withdrawn"}[u.Kind]
		fmt.Fprintf(&b, "%s %s %s:%d symptom_of=%q\n", kind, u.Finding.ID, u.Finding.Source, u.Finding.Line, u.Finding.SymptomOf)
	}
	return b.String()
}

// pace feeds inputs to their live sources line by line, in turn, as a
// clock would: after each line the input stays quiet for a random time
// of up to maxDelay, and the session is ticked as the timers of a live
// input would tick it. It is the live path without the goroutines, so
// that any pacing can be tried in no time.
func pace(t *testing.T, r *rand.Rand, maxDelay time.Duration, srcs []*Source, inputs [][]byte) {
	t.Helper()
	for _, src := range srcs {
		src.shows = true
	}
	for more := true; more; {
		more = false
		for i, src := range srcs {
			data := inputs[i]
			if len(data) == 0 {
				continue
			}
			more = true
			n := bytes.IndexByte(data, '\n') + 1
			if n == 0 {
				n = len(data)
			}
			src.eng.Write(data[:n])
			inputs[i] = data[n:]
			delay := time.Duration(r.Int64N(int64(maxDelay) + 1))
			var quiet time.Duration
			for next := src.tick(0); next > 0 && quiet+next <= delay; {
				quiet += next
				next = src.tick(quiet)
			}
		}
	}
	for _, src := range srcs {
		src.Close()
	}
}

// fixtureSets are the fixture logs read alone, and the ones that are read
// together.
func fixtureSets(t *testing.T) [][]string {
	logs, err := filepath.Glob("../testdata/logs/*.log")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no fixture logs: %v", err)
	}
	var sets [][]string
	for _, l := range logs {
		sets = append(sets, []string{l})
	}
	return append(sets,
		[]string{"../testdata/logs/pd-prefill-minimax-hetero-tp.log", "../testdata/logs/pd-decode-minimax-tp4.log"},
		[]string{"../testdata/logs/oom-tp4-sigquit.log", "../testdata/logs/port-in-use.log", "../testdata/logs/nccl-watchdog-tp8.log"},
	)
}

// What a live session ends with equals what a scan of the same bytes
// says, whatever the pacing of the lines: every fixture, alone and in
// sets, at random delays of up to 300 ms a line. Every provisional
// finding it showed on the way is either in the end's findings or was
// withdrawn, and every finding it showed is in the end's findings.
func TestLiveEqualsScanAtAnyPacing(t *testing.T) {
	m := builtinMatcher(t)
	for _, set := range fixtureSets(t) {
		var data [][]byte
		var names []string
		for _, p := range set {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, b)
			names = append(names, filepath.Base(p))
		}
		t.Run(strings.Join(names, "+"), func(t *testing.T) {
			scan := New(m, Options{})
			for i, b := range data {
				if err := scan.Add(names[i], SourceOptions{}).Scan(bytes.NewReader(b)); err != nil {
					t.Fatal(err)
				}
			}
			want := listReports(scan.Reports())
			for seed := range uint64(4) {
				var rec recorder
				live := New(m, Options{Update: rec.update})
				var srcs []*Source
				inputs := make([][]byte, len(data))
				for i, b := range data {
					srcs = append(srcs, live.Add(names[i], SourceOptions{}))
					inputs[i] = b
				}
				pace(t, rand.New(rand.NewPCG(seed, 7)), 300*time.Millisecond, srcs, inputs)
				reports := live.Reports()
				if got := listReports(reports); got != want {
					t.Fatalf("seed %d: live ended with\n%s\nscan says\n%s\nupdates:\n%s", seed, got, want, rec.String())
				}
				checkUpdates(t, rec.got, reports)
			}
		})
	}
}

// checkUpdates: a live reader is never left with a finding the end does
// not hold.
func checkUpdates(t *testing.T, updates []Update, reports []Report) {
	t.Helper()
	final := map[string]bool{}
	for _, r := range reports {
		for _, f := range r.Findings {
			final[f.Source+"\x00"+f.key] = true
		}
	}
	shown := map[string]bool{}
	for _, u := range updates {
		k := u.Finding.Source + "\x00" + u.Finding.key
		switch u.Kind {
		case Found, Provisional:
			shown[k] = true
		case Withdrawn:
			if !shown[k] {
				t.Errorf("withdrawn %s was not shown", u.Finding.ID)
			}
			delete(shown, k)
		}
	}
	for k := range shown {
		if !final[k] {
			t.Errorf("%q was shown and neither withdrawn nor in the end's findings", k)
		}
	}
}

const dyingTraceback = "[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB\n" +
	"[2026-11-29 10:15:03 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
	"  File \"/x/model_runner.py\", line 1090, in load_model\n" +
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n" +
	"[2026-11-29 10:15:04] Received sigquit from a child process. It usually means the child failed.\n"

// feed writes lines to a live source with the given quiet time after each.
func feed(src *Source, lines []string, quiet []time.Duration) {
	src.shows = true
	for i, l := range lines {
		src.eng.Write([]byte(l))
		var q time.Duration
		for next := src.tick(0); next > 0 && q+next <= quiet[i]; {
			q += next
			next = src.tick(q)
		}
	}
}

// A traceback is shown when its exception line has come and the input is
// quiet for a moment, not before; a pause in the middle of its frames
// shorter than the cut wait shows nothing; the symptom after it is linked
// to it as it is shown.
func TestLiveShowsAnEventWhenItIsComplete(t *testing.T) {
	var rec recorder
	s := New(testMatcher(t), Options{Update: rec.update})
	src := s.Add("x.log", SourceOptions{})
	lines := strings.SplitAfter(dyingTraceback, "\n")[:5]
	feed(src, lines, []time.Duration{0, 2 * time.Second, 0, time.Second, time.Second})
	want := "found t/oom x.log:2 symptom_of=\"\"\n" +
		"found t/sigquit x.log:5 symptom_of=\"t/oom\"\n"
	if rec.String() != want {
		t.Fatalf("updates:\n%swant:\n%s", rec.String(), want)
	}
	src.Close()
	if len(rec.got) != 2 {
		t.Errorf("closing the input said more: %s", rec.String())
	}
}

// A traceback waiting long for its exception line is shown cut off, and
// withdrawn when the exception line comes and makes it another finding.
func TestLiveWithdrawsACutTracebackThatGoesOn(t *testing.T) {
	var rec recorder
	s := New(testMatcher(t), Options{Update: rec.update})
	src := s.Add("x.log", SourceOptions{})
	lines := strings.SplitAfter(dyingTraceback, "\n")[:4]
	feed(src, lines, []time.Duration{0, 0, DefaultCut, time.Second})
	want := "provisional unknown/traceback x.log:2 symptom_of=\"\"\n" +
		"withdrawn unknown/traceback x.log:2 symptom_of=\"\"\n" +
		"found t/oom x.log:2 symptom_of=\"\"\n"
	if rec.String() != want {
		t.Fatalf("updates:\n%swant:\n%s", rec.String(), want)
	}
	if !rec.got[0].Finding.Provisional || !rec.got[0].Finding.Partial {
		t.Errorf("the cut traceback is not marked provisional and partial: %+v", rec.got[0].Finding)
	}
}

// Inputs that do not belong together are reported apart: a symptom in one
// is not linked to a cause in another, and the same error in both is
// counted in each.
func TestUnrelatedInputsAreReportedApart(t *testing.T) {
	m := testMatcher(t)
	oom := "[2026-11-29 10:15:03 TP0] torch.OutOfMemoryError: CUDA out of memory.\n"
	sig := "[2026-11-29 10:16:00] Received sigquit from a child process. It usually means the child failed.\n"
	got := listReports(scanText(t, m, oom, oom+sig).Reports())
	want := "report in0.log (1 lines)\n" +
		"  t/oom in0.log:1 ×1 ranks=[TP0] seen=\"2026-11-29 10:15:03\"..\"2026-11-29 10:15:03\" root=true symptom_of=\"\" partial=false\n" +
		"report in1.log (2 lines)\n" +
		"  t/oom in1.log:1 ×1 ranks=[TP0] seen=\"2026-11-29 10:15:03\"..\"2026-11-29 10:15:03\" root=true symptom_of=\"\" partial=false\n" +
		"  t/sigquit in1.log:2 ×1 ranks=[] seen=\"2026-11-29 10:16:00\"..\"2026-11-29 10:16:00\" root=false symptom_of=\"t/oom\" partial=false\n"
	if got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
	got = listReports(scanText(t, m, sig, oom).Reports())
	if strings.Contains(got, "symptom_of=\"t/oom\"") {
		t.Errorf("a symptom was linked to another input's cause:\n%s", got)
	}
}

// serverArgs is a server's configuration line.
func serverArgs(mode, model string, extra string) string {
	return fmt.Sprintf("[2026-11-29 10:00:00] server_args=ServerArgs(model_path='%s', tp_size=4, disaggregation_mode='%s'%s)\n", model, mode, extra)
}

// Which inputs belong together: a prefill and a decode server of one
// model, the nodes of one multi-node server, and inputs said to.
func TestInputsThatBelongTogether(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		opt  [2]SourceOptions
		want bool
	}{
		{"prefill and decode of one model", serverArgs("prefill", "org/M", ""), serverArgs("decode", "/local/m/", ""), [2]SourceOptions{}, true},
		{"prefill and decode of other models", serverArgs("prefill", "org/M", ""), serverArgs("decode", "org/N", ""), [2]SourceOptions{}, false},
		{"two prefill servers", serverArgs("prefill", "org/M", ""), serverArgs("prefill", "org/M", ""), [2]SourceOptions{}, false},
		{"nodes of one job", serverArgs("null", "M", ", dist_init_addr='10.0.0.1:5000', nnodes=2"),
			serverArgs("null", "M", ", dist_init_addr='10.0.0.1:5000', nnodes=2"), [2]SourceOptions{}, true},
		{"one node each", serverArgs("null", "M", ", dist_init_addr='10.0.0.1:5000', nnodes=1"),
			serverArgs("null", "M", ", dist_init_addr='10.0.0.1:5000', nnodes=1"), [2]SourceOptions{}, false},
		{"no configuration", "a\n", "b\n", [2]SourceOptions{}, false},
		{"said to", "a\n", "b\n", [2]SourceOptions{{Group: "cmd"}, {Group: "cmd"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(testMatcher(t), Options{})
			for i, log := range []string{tt.a, tt.b} {
				if err := s.Add(fmt.Sprint(i), tt.opt[i]).Scan(strings.NewReader(log)); err != nil {
					t.Fatal(err)
				}
			}
			if got := len(s.Reports()) == 1; got != tt.want {
				t.Errorf("together = %v, want %v", got, tt.want)
			}
		})
	}
}

// A live session reports a prefill/decode disagreement as soon as both
// configurations are known, once, before either input ends.
func TestLivePairsAsSoonAsBothConfigurationsAreKnown(t *testing.T) {
	var rec recorder
	s := New(builtinMatcher(t), Options{Update: rec.update})
	p, d := s.Add("p.log", SourceOptions{}), s.Add("d.log", SourceOptions{})
	feed(p, []string{serverArgs("prefill", "org/M", ", page_size=64")}, []time.Duration{0})
	if len(rec.got) != 0 {
		t.Fatalf("one side alone said: %s", rec.String())
	}
	feed(d, []string{serverArgs("decode", "org/M", ", page_size=16"), "[2026-11-29 10:00:01] more\n"}, []time.Duration{0, 0})
	if want := "found sglang/pd-page-size-mismatch p.log:1 symptom_of=\"\"\n"; rec.String() != want {
		t.Fatalf("updates:\n%swant:\n%s", rec.String(), want)
	}
	p.Close()
	d.Close()
	if fs := s.Findings(); len(fs) != 1 || fs[0].Count != 1 {
		t.Errorf("the end holds %s", listFindings(fs))
	}
}

// The goroutine path: Start, Write and Close reach the same end as Scan.
func TestStartedSourceEqualsScan(t *testing.T) {
	m := builtinMatcher(t)
	data, err := os.ReadFile("../testdata/logs/oom-tp4-sigquit.log")
	if err != nil {
		t.Fatal(err)
	}
	want := listReports(scanText(t, m, string(data)).Reports())
	s := New(m, Options{Update: func(Update) {}})
	src := s.Add("in0.log", SourceOptions{})
	src.Start(2)
	for len(data) > 0 {
		n := min(len(data), 97)
		src.Write(data[:n])
		data = data[n:]
	}
	src.Close()
	if got := listReports(s.Reports()); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// Two ranks' tracebacks cut at the same frame are shown once; only the
// view that was shown is withdrawn, when the rest of its own lines come.
func TestLiveWithdrawsOnlyWhatWasShown(t *testing.T) {
	var rec recorder
	s := New(testMatcher(t), Options{Update: rec.update})
	src := s.Add("x.log", SourceOptions{})
	lines := []string{
		"[rank0]: Traceback (most recent call last):\n",
		"[rank1]: Traceback (most recent call last):\n",
		"[rank0]:   File \"a.py\", line 1, in f\n",
		"[rank1]:   File \"a.py\", line 1, in f\n",
		"[rank1]: torch.OutOfMemoryError: CUDA out of memory.\n",
		"[rank1]: [2026-11-29 10:00:00 TP1] shutting down\n",
		"[rank0]: torch.OutOfMemoryError: CUDA out of memory.\n",
		"[rank0]: [2026-11-29 10:00:00 TP0] shutting down\n",
	}
	feed(src, lines, []time.Duration{0, 0, 0, DefaultCut, 0, 0, 0, 0})
	want := "provisional unknown/traceback x.log:1 symptom_of=\"\"\n" +
		"found t/oom x.log:2 symptom_of=\"\"\n" +
		"withdrawn unknown/traceback x.log:1 symptom_of=\"\"\n"
	if rec.String() != want {
		t.Fatalf("updates:\n%swant:\n%s", rec.String(), want)
	}
	src.Close()
	if len(rec.got) != 3 {
		t.Errorf("closing the input said more:\n%s", rec.String())
	}
}

// A live hint names the role the final report gives: an unknown error
// line right after a known cause is shown as following from it.
func TestLiveHintNamesTheFinalRole(t *testing.T) {
	var rec recorder
	s := New(testMatcher(t), Options{Update: rec.update})
	src := s.Add("x.log", SourceOptions{})
	feed(src, []string{
		"[2026-11-29 10:15:03 TP0] torch.OutOfMemoryError: CUDA out of memory.\n",
		"[2026-11-29 10:15:03 TP0] the scheduler failed to recover\n",
		"[2026-11-29 10:15:04] shutting down\n",
	}, []time.Duration{0, 0, 0})
	src.Close()
	want := "found t/oom x.log:1 symptom_of=\"\"\n" +
		"found unknown/error x.log:2 symptom_of=\"t/oom\"\n"
	if rec.String() != want {
		t.Fatalf("updates:\n%swant:\n%s", rec.String(), want)
	}
}

// BenchmarkSessionScanFile diagnoses a log named by TAILFIX_BENCH_LOG the
// way scan does (matcher, correlator, report); skipped without one.
func BenchmarkSessionScanFile(b *testing.B) {
	name := os.Getenv("TAILFIX_BENCH_LOG")
	if name == "" {
		b.Skip("TAILFIX_BENCH_LOG is not set")
	}
	st, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	m := builtinMatcher(b)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		s := New(m, Options{})
		if err := s.Add(name, SourceOptions{}).Scan(f); err != nil {
			b.Fatal(err)
		}
		s.Reports()
		f.Close()
	}
}

// A live input that logs a new error message line after line keeps a
// bounded number of findings and of keys shown, tells each family's
// summary once, and ends where a scan of the same bytes ends.
func TestLiveFoldingIsBounded(t *testing.T) {
	m := builtinMatcher(t)
	var b strings.Builder
	const n = 3 * maxUnknown
	for i := range n {
		fmt.Fprintf(&b, "[2026-03-18 10:00:00 TP%d] ERROR: failed to open shard %s of checkpoint\n", i%8, letters(i))
	}
	data := b.String()
	found := 0
	s := New(m, Options{Update: func(u Update) {
		if u.Kind == Found {
			found++
		}
	}})
	src := s.Add("in0.log", SourceOptions{})
	src.Start(2)
	for rest := data; len(rest) > 0; {
		k := min(len(rest), 4093)
		src.Write([]byte(rest[:k]))
		rest = rest[k:]
	}
	src.Close()
	r := s.Reports()[0]
	if len(r.Findings) != maxUnknown+1 || len(src.hinted) > maxUnknown+1 || found != maxUnknown+1 {
		t.Errorf("%d findings, %d keys shown, %d told live; want %d each", len(r.Findings), len(src.hinted), found, maxUnknown+1)
	}
	if r.Folded < 2*maxUnknown*95/100 || r.Folded > 2*maxUnknown*105/100 {
		t.Errorf("folded %d; want about %d", r.Folded, 2*maxUnknown)
	}
	if got, want := listReports(s.Reports()), listReports(scanText(t, m, data).Reports()); got != want {
		t.Errorf("live ends with:\n%.2000s\nscan with:\n%.2000s", got, want)
	}
}

// A fed input says after each batch which events the batch's lines belong
// to: a traceback whose exception line is the batch's last line is shown
// at once, as it stands, and comes again when the next batch ends it; the
// symptom of the next batch is linked to it. Each finding is shown once,
// and closing the input says nothing more.
func TestFedInputSaysWhatEachBatchIs(t *testing.T) {
	var rec recorder
	s := New(testMatcher(t), Options{Update: rec.update})
	src := s.Add("x.log", SourceOptions{})
	lines := strings.SplitAfter(dyingTraceback, "\n")
	listSeen := func(ss []Seen) string {
		var b strings.Builder
		for _, x := range ss {
			fmt.Fprintf(&b, "%s %d-%d symptom_of=%q\n", x.Finding.ID, x.Line, x.EndLine, x.Finding.SymptomOf)
		}
		return b.String()
	}
	for _, l := range lines[:4] {
		src.Feed([]byte(l))
	}
	if got, want := listSeen(src.Pause()), "t/oom 2-4 symptom_of=\"\"\n"; got != want {
		t.Errorf("first batch: seen\n%swant\n%s", got, want)
	}
	if got, want := rec.String(), "found t/oom x.log:2 symptom_of=\"\"\n"; got != want {
		t.Errorf("first batch: updates\n%swant\n%s", got, want)
	}
	src.Feed([]byte(lines[4]))
	want := "t/oom 2-4 symptom_of=\"\"\n" + "t/sigquit 5-5 symptom_of=\"t/oom\"\n"
	if got := listSeen(src.Pause()); got != want {
		t.Errorf("second batch: seen\n%swant\n%s", got, want)
	}
	if got := listSeen(src.Pause()); got != "" {
		t.Errorf("a pause with nothing fed saw\n%s", got)
	}
	src.Close()
	want = "found t/oom x.log:2 symptom_of=\"\"\n" + "found t/sigquit x.log:5 symptom_of=\"t/oom\"\n"
	if got := rec.String(); got != want {
		t.Errorf("updates\n%swant\n%s", got, want)
	}
}

// A traceback cut at the end of a batch, before its exception line, is
// not shown: it is what the next batch makes of it.
func TestFedInputWaitsForTheExceptionLine(t *testing.T) {
	var rec recorder
	s := New(testMatcher(t), Options{Update: rec.update})
	src := s.Add("x.log", SourceOptions{})
	lines := strings.SplitAfter(dyingTraceback, "\n")
	src.Feed([]byte(strings.Join(lines[:3], "")))
	if got := src.Pause(); len(got) != 0 || len(rec.got) != 0 {
		t.Fatalf("a traceback without its exception line was seen: %v, updates %s", got, rec.String())
	}
	src.Feed([]byte(lines[3]))
	got := src.Pause()
	if len(got) != 1 || got[0].Finding.ID != "t/oom" || got[0].Line != 2 || got[0].EndLine != 4 {
		t.Fatalf("seen %+v; want t/oom on lines 2-4", got)
	}
}

// MinSeverity sets the least severity a live update shows: a warning is
// shown when it is warning, not by default; a fed input sees it either way.
func TestMinSeverityOfUpdates(t *testing.T) {
	m := compileYAML(t, `
- id: t/slow
  title: slow
  severity: warning
  match: {message: "Prefill is slow."}
  tests: {match: ["Prefill is slow."]}
`)
	for _, tc := range []struct {
		min     patterns.Severity
		updates int
	}{{0, 0}, {patterns.SeverityError, 0}, {patterns.SeverityWarning, 1}, {patterns.SeverityInfo, 1}} {
		var rec recorder
		src := New(m, Options{Update: rec.update, MinSeverity: tc.min}).Add("x.log", SourceOptions{})
		src.Feed([]byte("[2026-11-29 10:15:02 TP0] Prefill is slow.\n"))
		seen := src.Pause()
		if len(rec.got) != tc.updates || len(seen) != 1 {
			t.Errorf("MinSeverity %v: %d updates, %d seen; want %d, 1", tc.min, len(rec.got), len(seen), tc.updates)
		}
	}
}
