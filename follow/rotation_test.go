package follow

// The rotation suite: a writer appends numbered lines to a log while the
// file is rotated the ways servers' logs are (the real logrotate with
// copytruncate and with create, a bare truncation, deletion, a file that
// appears late, a burst), and a follower must hand over every line exactly
// once, in order. The scenarios and the checker are shared by every follower
// under test: ours (rotation_ours_test.go) and github.com/nxadm/tail, the
// common Go library for the job, as a yardstick (TAILFIX_ROTATION_NXADM=1;
// scripts/rotation-compare.sh prints the two side by side).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nxadm/tail"
	"go.uber.org/goleak"
)

// nxadmRan is set when the nxadm tests ran, so that TestMain ignores the
// goroutines that nxadm/tail leaves behind by design.
var nxadmRan atomic.Bool

// TestMain checks that no goroutine outlives the tests, as
// goleak.VerifyTestMain(m) does, except that what to ignore is chosen after
// the run. nxadm/tail starts, on first use, one process-wide inotify tracker
// (watch.(*InotifyTracker).run) with an fsnotify watcher whose reader
// (fsnotify's readEvents) runs beside it, and has no way to stop either. When
// the nxadm tests ran, and only then, those two are ignored: the tracker by
// its top function; the reader by its function anywhere in the stack, since
// its top frames are the runtime's poller (internal/poll.runtime_pollWait),
// which is no one's in particular. Follow uses fsnotify too, so the reader
// is ignored only while there is just one (nxadm's); and TestRotationOurs
// checks for leaks by itself, whatever ran before it.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		var opts []goleak.Option
		if nxadmRan.Load() {
			opts = append(opts, goleak.IgnoreTopFunction("github.com/nxadm/tail/watch.(*InotifyTracker).run"))
			if waitFor(2*time.Second, func() bool { return countGoroutines(fsnotifyReader) <= 1 }) {
				for _, f := range fsnotifyReaders {
					opts = append(opts, goleak.IgnoreAnyFunction(f))
				}
			}
		}
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: Errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// fsnotifyReaders are the names fsnotify's inotify reader has had.
var fsnotifyReaders = []string{
	"github.com/fsnotify/fsnotify.(*inotify).readEvents", // recent versions
	"github.com/fsnotify/fsnotify.(*Watcher).readEvents", // older versions
}

func fsnotifyReader(stack string) bool {
	for _, f := range fsnotifyReaders {
		if strings.Contains(stack, "\n"+f+"(") {
			return true
		}
	}
	return false
}

// countGoroutines counts the goroutines whose stack satisfies match.
func countGoroutines(match func(stack string) bool) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if match(g) {
			count++
		}
	}
	return count
}

// A tailer follows path until ctx is done, handing the bytes it reads to
// out in order. out may be called from another goroutine than the caller's.
// With fromStart false only what is written after the start is wanted.
type tailer func(ctx context.Context, path string, fromStart bool, out func([]byte)) error

const (
	lineLen       = 80                     // bytes of a line without its newline
	settleTime    = 200 * time.Millisecond // after starting the tailer
	drainTimeout  = 5 * time.Second        // for the last lines after the writer is done
	stopTimeout   = 5 * time.Second        // for the tailer to return after cancel
	catchUpLimit  = 2 * time.Second        // for the tailer to catch up before a step
	dupGrace      = 150 * time.Millisecond
	showFirst     = 8 // lost or duplicated seqs shown
	logrotateWait = 20 * time.Second
)

// seqLine is line n as written: "seq=N " padded to lineLen with a letter that
// depends on N, so that a line spliced from two others does not pass.
func seqLine(n int) []byte {
	b := make([]byte, 0, lineLen+1)
	b = append(b, "seq="...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	for len(b) < lineLen {
		b = append(b, byte('a'+n%26))
	}
	return append(b, '\n')
}

// parseSeq returns N when line (without its newline) is exactly line N of
// 1..k as written, else 0.
func parseSeq(line []byte, k int) int {
	rest, ok := bytes.CutPrefix(line, []byte("seq="))
	if !ok {
		return 0
	}
	i := bytes.IndexByte(rest, ' ')
	if i <= 0 {
		return 0
	}
	n, err := strconv.Atoi(string(rest[:i]))
	if err != nil || n < 1 || n > k {
		return 0
	}
	if want := seqLine(n); !bytes.Equal(line, want[:len(want)-1]) {
		return 0
	}
	return n
}

// collector gathers what a tailer hands over and keeps count, as it
// arrives, of the distinct seqs seen.
type collector struct {
	k        int
	mu       sync.Mutex
	buf      []byte
	parsed   int // buf[:parsed] is whole lines already counted
	seen     []bool
	distinct int
	maxSeq   int
}

func newCollector(k int) *collector {
	return &collector{k: k, seen: make([]bool, k+1)}
}

func (c *collector) add(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf[c.parsed:], '\n')
		if i < 0 {
			return
		}
		if n := parseSeq(c.buf[c.parsed:c.parsed+i], c.k); n > 0 {
			if !c.seen[n] {
				c.seen[n] = true
				c.distinct++
			}
			c.maxSeq = max(c.maxSeq, n)
		}
		c.parsed += i + 1
	}
}

// hasAll reports whether every seq of 1..n has been seen.
func (c *collector) hasAll(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n == c.k {
		return c.distinct == c.k
	}
	for i := n; i >= 1; i-- {
		if !c.seen[i] {
			return false
		}
	}
	return true
}

func (c *collector) snapshot() ([]byte, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf), c.distinct
}

// waitFor polls cond until it holds or limit passes.
func waitFor(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}

// result is what the checker found in a tailer's output.
type result struct {
	k         int
	lines     int   // complete lines handed over
	lost      []int // seqs never seen
	dup       []int // seqs seen more than once, each listed once
	dupExtra  int   // copies beyond the first, all seqs together
	reordered int   // first sightings of a seq below one seen before
	other     int   // lines that are not a line the writer wrote (or a partial last line)
	otherEx   []string
}

func (r result) ok() bool {
	return len(r.lost) == 0 && len(r.dup) == 0 && r.reordered == 0 && r.other == 0
}

// check compares data with lines 1..k written in order.
func check(data []byte, k int) result {
	r := result{k: k}
	count := make([]int32, k+1)
	maxSeen := 0
	for len(data) > 0 {
		line := data
		i := bytes.IndexByte(data, '\n')
		if i >= 0 {
			line, data = data[:i], data[i+1:]
			r.lines++
		} else {
			data = nil
		}
		n := 0
		if i >= 0 {
			n = parseSeq(line, k)
		}
		if n == 0 {
			r.other++
			if len(r.otherEx) < 3 {
				s := string(line)
				if len(s) > 40 {
					s = s[:40] + "…"
				}
				if i < 0 {
					s += " (no newline)"
				}
				r.otherEx = append(r.otherEx, s)
			}
			continue
		}
		count[n]++
		switch {
		case count[n] == 2:
			r.dup = append(r.dup, n)
			r.dupExtra++
		case count[n] > 2:
			r.dupExtra++
		case n < maxSeen:
			r.reordered++
		}
		maxSeen = max(maxSeen, n)
	}
	for n := 1; n <= k; n++ {
		if count[n] == 0 {
			r.lost = append(r.lost, n)
		}
	}
	return r
}

// firstFew formats the first few of seqs, collapsing runs: "3-9 12".
func firstFew(seqs []int) string {
	if len(seqs) == 0 {
		return "none"
	}
	var parts []string
	i := 0
	for i < len(seqs) && len(parts) < showFirst {
		j := i
		for j+1 < len(seqs) && seqs[j+1] == seqs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", seqs[i], seqs[j]))
		} else {
			parts = append(parts, strconv.Itoa(seqs[i]))
		}
		i = j + 1
	}
	if i < len(seqs) {
		parts = append(parts, "…")
	}
	return strings.Join(parts, " ")
}

// summary is the result line: "<impl> <scenario>: lost=N dup=M (first lost:
// …) …". scripts/rotation-compare.sh parses it.
func (r result) summary(impl, scenario string) string {
	s := fmt.Sprintf("%s %s: lost=%d dup=%d (first lost: %s) (first dup: %s)",
		impl, scenario, len(r.lost), len(r.dup), firstFew(r.lost), firstFew(r.dup))
	if r.dupExtra > len(r.dup) {
		s += fmt.Sprintf(" extra-copies=%d", r.dupExtra)
	}
	if r.reordered > 0 {
		s += fmt.Sprintf(" reordered=%d", r.reordered)
	}
	if r.other > 0 {
		s += fmt.Sprintf(" other-lines=%d %q", r.other, r.otherEx)
	}
	return s
}

// lineWriter appends lines the way a server does: its own descriptor opened
// O_APPEND|O_CREATE|O_WRONLY, one write(2) per line.
type lineWriter struct {
	path string
	f    *os.File
}

func (w *lineWriter) open() error {
	f, err := os.OpenFile(w.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w.f = f
	return nil
}

// reopen closes the descriptor and opens the path again, as a server does
// on SIGHUP after its log was rotated.
func (w *lineWriter) reopen() error {
	if err := w.close(); err != nil {
		return err
	}
	return w.open()
}

func (w *lineWriter) close() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

func (w *lineWriter) write(n int) error {
	_, err := w.f.Write(seqLine(n)) // a single write(2) for a regular file
	return err
}

// env is what a scenario's steps act on.
type env struct {
	dir, path string
	w         *lineWriter
	logrotate string // the binary
	conf      string // written on first use
	state     string
}

// rotate runs the real logrotate once, forced, with a private state file
// and a config for the log with the given method ("copytruncate" or
// "create").
func (e *env) rotate(method string) error {
	if e.conf == "" {
		e.conf = filepath.Join(e.dir, "logrotate.conf")
		e.state = filepath.Join(e.dir, "logrotate.state")
		conf := fmt.Sprintf("%q {\n\t%s\n\trotate 10\n\tmissingok\n\tnocompress\n}\n", e.path, method)
		if err := os.WriteFile(e.conf, []byte(conf), 0o644); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), logrotateWait)
	defer cancel()
	out, err := exec.CommandContext(ctx, e.logrotate, "-f", "-s", e.state, e.conf).CombinedOutput()
	if err != nil {
		return fmt.Errorf("logrotate %s: %v\n%s", method, err, out)
	}
	return nil
}

// A step runs in the writer, before it writes line at.
type step struct {
	at int
	// catchUp waits (up to catchUpLimit) until the tailer has handed over
	// every line before at, so that what is lost is the follower's doing
	// and not the inherent window of the action (copytruncate loses, for
	// every reader, what it has not read when the file is truncated).
	catchUp bool
	do      func(e *env) error
	// burst writes the next burst lines without pacing.
	burst int
}

// scenario is one way of writing and rotating a log.
type scenario struct {
	name           string
	k              int           // lines seq=1..k
	pace           time.Duration // average time between lines; 0 is as fast as possible
	preexisting    int           // lines in the file before the tailer starts
	missing        bool          // no file when the tailer starts
	fromStart      bool
	needsLogrotate bool
	steps          []step
	about          string // what a follower must do to pass
}

func logrotateStep(at int, method string) step {
	return step{at: at, catchUp: method == "copytruncate", do: func(e *env) error { return e.rotate(method) }}
}

func reopenStep(at int) step {
	return step{at: at, do: func(e *env) error { return e.w.reopen() }}
}

// truncateBurst truncates the file and, with no pause, writes burst lines
// (more bytes than the file held).
func truncateBurst(at, burst int) step {
	return step{at: at, catchUp: true, burst: burst, do: func(e *env) error { return os.Truncate(e.path, 0) }}
}

func scenarios() []scenario {
	return []scenario{{
		name: "plain", k: 2000, pace: 100 * time.Microsecond, preexisting: 100,
		about: "no rotation; the lines that were there before the start are not wanted",
	}, {
		// logrotate runs inside the writer, so no line is written between
		// its copy and its truncation (such a line is in neither file).
		name: "copytruncate", k: 2000, pace: 250 * time.Microsecond, preexisting: 100, needsLogrotate: true,
		steps: []step{logrotateStep(500, "copytruncate"), logrotateStep(1000, "copytruncate"), logrotateStep(1500, "copytruncate")},
		about: "logrotate copytruncate three times; the writer keeps its descriptor (O_APPEND)",
	}, {
		// Before the truncations the file holds 299, 500 and 700 lines;
		// each burst is 100 lines more.
		name: "copytruncate-fast-write", k: 2600, pace: 250 * time.Microsecond,
		steps: []step{truncateBurst(300, 400), truncateBurst(800, 600), truncateBurst(1500, 800)},
		about: "truncation followed at once by more bytes than the file held: the size never looks smaller than the offset",
	}, {
		name: "create", k: 2000, pace: 250 * time.Microsecond, preexisting: 100, needsLogrotate: true,
		steps: []step{
			logrotateStep(500, "create"), reopenStep(600),
			logrotateStep(1000, "create"), reopenStep(1100),
			logrotateStep(1500, "create"), reopenStep(1600),
		},
		about: "logrotate create three times; the writer goes on writing 100 lines to the renamed file before it reopens the path",
	}, {
		name: "delete-recreate", k: 2000, pace: 250 * time.Microsecond, preexisting: 100,
		steps: []step{{at: 1000, do: func(e *env) error {
			if err := os.Remove(e.path); err != nil {
				return err
			}
			return e.w.reopen()
		}}},
		about: "the file is deleted mid-way and the writer creates a new one at the path",
	}, {
		// Followed from the end, as a live log is: a file that appears
		// later must still be read from its beginning.
		name: "missing-at-start", k: 2000, pace: 100 * time.Microsecond, missing: true,
		about: "the file appears after the start; all of it is new, so it is read from its beginning",
	}, {
		name: "fast-burst", k: 200000,
		about: "200000 lines as fast as the writer can, no rotation",
	}}
}

// outcome is one run of a scenario with one tailer.
type outcome struct {
	res       result
	gotAll    bool  // every seq seen before drainTimeout
	hung      bool  // the tailer did not return within stopTimeout of cancel
	tailerErr error // what the tailer returned, context errors aside
	notes     []string
	elapsed   time.Duration
}

func (o outcome) describe() string {
	var parts []string
	switch {
	case o.gotAll && o.res.ok():
		parts = append(parts, "ok")
	case o.gotAll:
		parts = append(parts, "all seqs arrived, with faults")
	default:
		parts = append(parts, fmt.Sprintf("%d of %d seqs arrived within %v of the writer's end", o.res.k-len(o.res.lost), o.res.k, drainTimeout))
	}
	if o.hung {
		parts = append(parts, fmt.Sprintf("HUNG: did not return within %v of cancel", stopTimeout))
	}
	if o.tailerErr != nil {
		parts = append(parts, fmt.Sprintf("returned error: %v", o.tailerErr))
	}
	parts = append(parts, o.notes...)
	parts = append(parts, fmt.Sprintf("took %v", o.elapsed.Round(10*time.Millisecond)))
	return strings.Join(parts, "; ")
}

// logrotateBinary finds logrotate, or skips (fails with
// TAILFIX_REQUIRE_LOGROTATE=1) when it is not installed.
func logrotateBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("logrotate"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/logrotate", "/sbin/logrotate"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("TAILFIX_REQUIRE_LOGROTATE") == "1" {
		t.Fatal("logrotate is not installed (apt-get install logrotate) and TAILFIX_REQUIRE_LOGROTATE=1")
	}
	t.Skip("logrotate is not installed (apt-get install logrotate); set TAILFIX_REQUIRE_LOGROTATE=1 to fail instead")
	return ""
}

// runScenario runs sc against tl in a fresh directory. Faults of the
// harness itself (a step that fails) stop the test; the tailer's behaviour
// is returned for the caller to judge.
func runScenario(t *testing.T, tl tailer, sc scenario) outcome {
	t.Helper()
	start := time.Now()
	e := &env{dir: t.TempDir()}
	e.path = filepath.Join(e.dir, "server.log")
	if sc.needsLogrotate {
		e.logrotate = logrotateBinary(t)
	}
	if !sc.missing {
		var pre []byte
		for i := 1; i <= sc.preexisting; i++ {
			pre = fmt.Appendf(pre, "old=%d written before the tailer started\n", i)
		}
		if err := os.WriteFile(e.path, pre, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	col := newCollector(sc.k)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tailerDone := make(chan error, 1)
	go func() { tailerDone <- tl(ctx, e.path, sc.fromStart, col.add) }()
	time.Sleep(settleTime)

	var o outcome
	writerDone := make(chan error, 1)
	var notes []string // written by the writer, read after writerDone
	go func() {
		writerDone <- func() error {
			e.w = &lineWriter{path: e.path}
			if err := e.w.open(); err != nil {
				return err
			}
			defer e.w.close()
			steps := sc.steps
			next := time.Now()
			unpaced := 0
			for n := 1; n <= sc.k; n++ {
				for len(steps) > 0 && steps[0].at == n {
					s := steps[0]
					steps = steps[1:]
					if s.catchUp && !waitFor(catchUpLimit, func() bool { return col.hasAll(n - 1) }) {
						notes = append(notes, fmt.Sprintf("tailer had not caught up after %v before the step at %d", catchUpLimit, n))
					}
					if err := s.do(e); err != nil {
						return fmt.Errorf("step at line %d: %w", n, err)
					}
					unpaced = s.burst
					next = time.Now()
				}
				if unpaced > 0 {
					unpaced--
					if unpaced == 0 {
						next = time.Now()
					}
				} else if sc.pace > 0 {
					next = next.Add(sc.pace)
					if d := time.Until(next); d > 0 {
						time.Sleep(d)
					}
				}
				if err := e.w.write(n); err != nil {
					return fmt.Errorf("writing line %d: %w", n, err)
				}
			}
			return nil
		}()
	}()
	if err := <-writerDone; err != nil {
		cancel()
		select {
		case <-tailerDone:
		case <-time.After(stopTimeout):
		}
		t.Fatalf("writer: %v", err)
	}
	o.notes = notes

	o.gotAll = waitFor(drainTimeout, func() bool { return col.hasAll(sc.k) })
	if o.gotAll {
		time.Sleep(dupGrace) // room for late duplicates
	}
	cancel()
	select {
	case err := <-tailerDone:
		if err != nil && !errors.Is(err, context.Canceled) {
			o.tailerErr = err
		}
	case <-time.After(stopTimeout):
		o.hung = true
	}
	data, _ := col.snapshot()
	o.res = check(data, sc.k)
	o.elapsed = time.Since(start)
	return o
}

// nxadmTail follows path with github.com/nxadm/tail set up as a careful
// user would for a rotating log: follow, reopen on rename or deletion,
// inotify, start at the end unless fromStart, no logging to stderr.
func nxadmTail(ctx context.Context, path string, fromStart bool, out func([]byte)) error {
	cfg := tail.Config{
		Follow:    true,
		ReOpen:    true,
		MustExist: false,
		Poll:      false,
		Logger:    tail.DiscardingLogger,
	}
	if !fromStart {
		cfg.Location = &tail.SeekInfo{Offset: 0, Whence: io.SeekEnd}
	}
	tl, err := tail.TailFile(path, cfg)
	if err != nil {
		return err
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		for line := range tl.Lines {
			out([]byte(line.Text + "\n"))
		}
	}()
	<-ctx.Done()
	err = tl.Stop() // nil unless the tail had died of an error before
	tl.Cleanup()
	<-read
	return err
}

// TestRotationNxadm measures github.com/nxadm/tail on the same scenarios.
// It reports, it does not fail on what the library loses.
func TestRotationNxadm(t *testing.T) {
	if os.Getenv("TAILFIX_ROTATION_NXADM") != "1" {
		t.Skip("set TAILFIX_ROTATION_NXADM=1 to measure github.com/nxadm/tail")
	}
	nxadmRan.Store(true)
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			o := runScenario(t, nxadmTail, sc)
			t.Logf("%s", o.res.summary("nxadm", sc.name))
			t.Logf("nxadm %s outcome: %s", sc.name, o.describe())
		})
	}
}
