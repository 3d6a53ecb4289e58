package tailfixprocessor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/zap"

	"github.com/tailfix/tailfix/matcher"
)

// oomLines are a server's last lines: a traceback of running out of GPU
// memory (lines 2-5), a blank line, and the sigquit that follows from it.
var oomLines = []string{
	"[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB",
	"[2026-11-29 10:15:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
	`  File "/x/model_runner.py", line 1090, in load_model`,
	"    self.model = get_model()",
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
	"",
	"[2026-11-29 10:15:04] Received sigquit from a child process. It usually means the child failed.",
}

// kvLines are another server's: a traceback of a KV cache that does not
// fit (lines 2-5), then a line of the server going down.
var kvLines = []string{
	"[2026-11-29 10:15:02 TP0] Load weight end. elapsed=38.64 s, avail mem=40.87 GB",
	"[2026-11-29 10:15:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
	`  File "/x/scheduler.py", line 421, in __init__`,
	"    self.init_memory_pool()",
	"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
	"[2026-11-29 10:15:04 TP0] Shutting down.",
}

// builtinPack is the built-in pack, compiled once for all tests.
var builtinPack = sync.OnceValues(func() (*matcher.Matcher, error) { return load(nil, zap.NewNop()) })

// builtin is the built-in pack, or the test fails.
func builtin(t testing.TB) *matcher.Matcher {
	t.Helper()
	m, err := builtinPack()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// clock is a test's time, moved by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// harness is a started processor whose output goes to a sink.
type harness struct {
	t     *testing.T
	p     processor.Logs
	sink  *consumertest.LogsSink
	clock *clock
}

func start(t *testing.T, cfg *Config) *harness {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, sink: new(consumertest.LogsSink), clock: &clock{now: time.Date(2026, 11, 29, 10, 15, 2, 0, time.UTC)}}
	p, err := create(context.Background(), processortest.NewNopSettings(Type), cfg, h.sink, builtin(t), h.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Shutdown(context.Background()) })
	h.p = p
	return h
}

// line is a record of a pod.
type line struct{ pod, body string }

func podLines(pod string, bodies ...string) []line {
	out := make([]line, len(bodies))
	for i, b := range bodies {
		out[i] = line{pod, b}
	}
	return out
}

// interleave takes a line of each in turn.
func interleave(a, b []line) []line {
	var out []line
	for i := 0; i < len(a) || i < len(b); i++ {
		if i < len(a) {
			out = append(out, a[i])
		}
		if i < len(b) {
			out = append(out, b[i])
		}
	}
	return out
}

// batch makes logs of lines: a resource for each run of lines of one pod,
// each record stamped a second after the one before.
func batch(lines []line) plog.Logs {
	ld := plog.NewLogs()
	var lrs plog.LogRecordSlice
	prev := ""
	for i, l := range lines {
		if i == 0 || l.pod != prev {
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutStr("k8s.namespace.name", "default")
			rl.Resource().Attributes().PutStr("k8s.pod.name", l.pod)
			lrs = rl.ScopeLogs().AppendEmpty().LogRecords()
			prev = l.pod
		}
		lr := lrs.AppendEmpty()
		lr.Body().SetStr(l.body)
		lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Date(2026, 11, 29, 10, 15, i, 0, time.UTC)))
	}
	return ld
}

// consume sends a batch and returns what came out of it.
func (h *harness) consume(ld plog.Logs) []out {
	h.t.Helper()
	h.sink.Reset()
	if err := h.p.ConsumeLogs(context.Background(), ld); err != nil {
		h.t.Fatal(err)
	}
	var got []out
	for _, ld := range h.sink.AllLogs() {
		got = append(got, outputs(ld)...)
	}
	return got
}

// out is a record that came out, with what tailfix says of it.
type out struct {
	pod, body               string
	id, severity, symptomOf string
	finding                 bool // a finding record
	update                  string
	sevNumber               plog.SeverityNumber
	timestamp               pcommon.Timestamp
	json                    map[string]any // a finding record's body
}

func (o out) String() string {
	if o.finding {
		return fmt.Sprintf("%s: finding %s %s %s symptom_of=%q", o.pod, o.update, o.id, o.severity, o.symptomOf)
	}
	if o.id == "" {
		return fmt.Sprintf("%s: %q", o.pod, o.body)
	}
	return fmt.Sprintf("%s: %q %s %s symptom_of=%q", o.pod, o.body, o.id, o.severity, o.symptomOf)
}

func outputs(ld plog.Logs) []out {
	var got []out
	for _, rl := range ld.ResourceLogs().All() {
		pod := str(rl.Resource().Attributes(), "k8s.pod.name")
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				o := out{pod: pod, body: lr.Body().AsString(), finding: lr.EventName() == EventName,
					sevNumber: lr.SeverityNumber(), timestamp: lr.Timestamp()}
				a := lr.Attributes()
				o.id, o.severity, o.symptomOf, o.update = str(a, AttrID), str(a, AttrSeverity), str(a, AttrSymptomOf), str(a, AttrUpdate)
				if o.finding {
					if sl.Scope().Name() != ScopeName {
						panic("finding record in scope " + sl.Scope().Name())
					}
					if err := json.Unmarshal([]byte(o.body), &o.json); err != nil {
						panic(fmt.Sprintf("finding record's body is not JSON: %v: %s", err, o.body))
					}
				}
				got = append(got, o)
			}
		}
	}
	return got
}

// str is an attribute as a string, or "".
func str(a pcommon.Map, k string) string {
	if v, ok := a.Get(k); ok {
		return v.AsString()
	}
	return ""
}

func list(outs []out) string {
	var b strings.Builder
	for _, o := range outs {
		b.WriteString(o.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// want is what the records of lines come out as: each line's record
// annotated with the finding of ids[i] (id, severity, symptom of), if any,
// then the finding records.
func want(lines []line, ids map[int][3]string, findings ...string) string {
	var b strings.Builder
	for i, l := range lines {
		o := out{pod: l.pod, body: l.body}
		if a, ok := ids[i]; ok {
			o.id, o.severity, o.symptomOf = a[0], a[1], a[2]
		}
		b.WriteString(o.String())
		b.WriteByte('\n')
	}
	for _, f := range findings {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	oom     = [3]string{"torch/cuda-oom", "error", ""}
	sigquit = [3]string{"sglang/child-failed-sigquit", "error", "torch/cuda-oom"}
	kv      = [3]string{"sglang/not-enough-memory-kv-pool", "fatal", ""}
)

// A traceback spread over records of one pod: its records are annotated,
// the others are not, and one finding record comes after them, carrying
// the finding whole; whether the traceback is the batch's last record or
// not, one record a line or in one record.
func TestTracebackOfOnePod(t *testing.T) {
	tb := podLines("a", oomLines[:6]...)
	for _, tc := range []struct {
		name  string
		lines []line
		ids   map[int][3]string
	}{
		{"a record a line", tb, map[int][3]string{1: oom, 2: oom, 3: oom, 4: oom}},
		{"the exception line last", tb[:5], map[int][3]string{1: oom, 2: oom, 3: oom, 4: oom}},
		{"a record of several lines", []line{tb[0], {"a", strings.Join(oomLines[1:5], "\n") + "\n"}, tb[5]}, map[int][3]string{1: oom}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, createDefaultConfig())
			got := h.consume(batch(tc.lines))
			if w := want(tc.lines, tc.ids, "a: finding found torch/cuda-oom error symptom_of=\"\""); list(got) != w {
				t.Fatalf("got\n%swant\n%s", list(got), w)
			}
			f := got[len(got)-1]
			if f.sevNumber != plog.SeverityNumberError {
				t.Errorf("finding record's severity number is %v; want ERROR", f.sevNumber)
			}
			if want := batch(tc.lines).ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1).Timestamp(); f.timestamp != want {
				t.Errorf("finding record's time is %v; want %v, its first line's", f.timestamp, want)
			}
			j := f.json
			if j["id"] != "torch/cuda-oom" || j["line"] != 2.0 || j["end_line"] != 5.0 || j["source"] != "default a" ||
				j["exception"] != "torch.OutOfMemoryError" || j["root_cause"] != true {
				t.Errorf("finding record's body: %v", j)
			}
			if r, _ := j["remedy"].(map[string]any); r == nil || r["cause"] == "" {
				t.Errorf("finding record has no remedy: %v", j)
			}
		})
	}
}

// A traceback whose lines come in two batches: the records of each batch
// are annotated once the finding is known, a finding is told once, and a
// symptom in a later batch names its cause.
func TestTracebackAcrossBatches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		split  int
		first  map[int][3]string
		second map[int][3]string
		f1, f2 []string
	}{
		{"cut before the exception line", 3,
			map[int][3]string{},
			map[int][3]string{0: oom, 1: oom, 3: sigquit},
			nil,
			[]string{"a: finding found torch/cuda-oom error symptom_of=\"\"", "a: finding found sglang/child-failed-sigquit error symptom_of=\"torch/cuda-oom\""}},
		{"cut after the exception line", 5,
			map[int][3]string{1: oom, 2: oom, 3: oom, 4: oom},
			map[int][3]string{1: sigquit},
			[]string{"a: finding found torch/cuda-oom error symptom_of=\"\""},
			[]string{"a: finding found sglang/child-failed-sigquit error symptom_of=\"torch/cuda-oom\""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, createDefaultConfig())
			lines := podLines("a", oomLines...)
			one, two := lines[:tc.split], lines[tc.split:]
			if got, w := list(h.consume(batch(one))), want(one, tc.first, tc.f1...); got != w {
				t.Errorf("first batch:\n%swant\n%s", got, w)
			}
			if got, w := list(h.consume(batch(two))), want(two, tc.second, tc.f2...); got != w {
				t.Errorf("second batch:\n%swant\n%s", got, w)
			}
		})
	}
}

// Two pods whose lines are interleaved record by record are diagnosed
// apart: each pod's traceback is its own finding, on its own records,
// told under its own resource.
func TestInterleavedPodsStayApart(t *testing.T) {
	h := start(t, createDefaultConfig())
	lines := interleave(podLines("a", oomLines...), podLines("b", kvLines...))
	ids := map[int][3]string{}
	for i, l := range lines {
		n := i / 2
		switch {
		case l.pod == "a" && n >= 1 && n <= 4:
			ids[i] = oom
		case l.pod == "a" && n == 6:
			ids[i] = sigquit
		case l.pod == "b" && n >= 1 && n <= 4:
			ids[i] = kv
		}
	}
	got := h.consume(batch(lines))
	w := want(lines, ids,
		"a: finding found torch/cuda-oom error symptom_of=\"\"",
		"a: finding found sglang/child-failed-sigquit error symptom_of=\"torch/cuda-oom\"",
		"b: finding found sglang/not-enough-memory-kv-pool fatal symptom_of=\"\"")
	if list(got) != w {
		t.Fatalf("got\n%swant\n%s", list(got), w)
	}
	for _, o := range got {
		if o.finding && o.id != sigquit[0] && (o.json["line"] != 2.0 || o.json["end_line"] != 5.0) {
			t.Errorf("%s: at lines %v-%v of its stream; want 2-5", o, o.json["line"], o.json["end_line"])
		}
	}
}

// The healthy start-up of a server makes no finding at error level: every
// record comes out as it went in, in the same order, nothing added. Bodies
// that are not strings, lines of several records and records that carry
// attributes of their own pass as they are. At warning level its one
// warning is annotated and told.
func TestRecordsPassThroughUnchanged(t *testing.T) {
	healthy, err := os.ReadFile("../../testdata/logs/healthy-tp8-startup.log")
	if err != nil {
		t.Fatal(err)
	}
	bodies := strings.Split(strings.TrimSuffix(string(healthy), "\n"), "\n")
	// One routine warning of sglang's own among the healthy lines, at
	// line 7 (the settings notes there are known at info level).
	bodies[6] = "[2026-09-08 06:30:12] Endpoint '/get_server_info' is deprecated and will be removed in a future version. Please use '/server_info' instead."
	lines := interleave(podLines("a", bodies...), podLines("b", bodies[:20]...))
	logs := func() plog.Logs {
		ld := batch(lines)
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "router")
		lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
		lrs.AppendEmpty().Body().SetEmptyMap().PutStr("msg", "request done")
		lrs.AppendEmpty().Body().SetEmptyBytes().FromRaw([]byte("raw \xff bytes"))
		lrs.AppendEmpty() // no body
		lr := lrs.AppendEmpty()
		lr.Body().SetStr("two\nlines\n")
		lr.Attributes().PutStr("log.iostream", "stderr")
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		return ld
	}
	var m plog.JSONMarshaler
	in, err := m.MarshalLogs(logs())
	if err != nil {
		t.Fatal(err)
	}
	h := start(t, createDefaultConfig())
	h.sink.Reset()
	if err := h.p.ConsumeLogs(context.Background(), logs()); err != nil {
		t.Fatal(err)
	}
	gotLogs := h.sink.AllLogs()
	if len(gotLogs) != 1 {
		t.Fatalf("%d batches came out; want 1", len(gotLogs))
	}
	outJSON, err := m.MarshalLogs(gotLogs[0])
	if err != nil {
		t.Fatal(err)
	}
	if string(outJSON) != string(in) {
		t.Errorf("the records changed:\nin  %.3000s\nout %.3000s", in, outJSON)
	}
	if n, w := gotLogs[0].LogRecordCount(), len(lines)+4; n != w {
		t.Errorf("%d records came out; want %d", n, w)
	}

	cfg := createDefaultConfig()
	cfg.MinSeverity = "warning"
	h = start(t, cfg)
	var annotated []string
	findings := 0
	for _, o := range h.consume(logs()) {
		switch {
		case o.finding:
			findings++
			if o.sevNumber != plog.SeverityNumberWarn || o.severity != "warning" {
				t.Errorf("warning's finding record: %s, severity number %v", o, o.sevNumber)
			}
		case o.id != "":
			annotated = append(annotated, o.pod+": "+o.body)
		}
	}
	warning := bodies[6]
	if w := []string{"a: " + warning, "b: " + warning}; strings.Join(annotated, "\n") != strings.Join(w, "\n") || findings != 2 {
		t.Errorf("at warning level, annotated\n%s\nand %d finding records; want each pod's line 7 and 2", strings.Join(annotated, "\n"), findings)
	}
}

// A stream idle for longer than idle_timeout is dropped: the traceback it
// left open is told at the next batch, under its resource, and the pod's
// next line starts a new diagnosis. A stream within the timeout is kept.
func TestIdleStreamsAreDropped(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.IdleTimeout = time.Minute
	h := start(t, cfg)
	h.consume(batch(podLines("a", oomLines[:3]...)))
	h.clock.add(50 * time.Second)
	if got := list(h.consume(batch(podLines("b", "[2026-11-29 10:16:00] ok")))); strings.Contains(got, "finding") {
		t.Fatalf("a stream within the timeout was dropped:\n%s", got)
	}
	h.clock.add(20 * time.Second)
	got := h.consume(batch(podLines("b", "[2026-11-29 10:16:20] ok")))
	if w := "b: \"[2026-11-29 10:16:20] ok\"\na: finding found unknown/traceback error symptom_of=\"\"\n"; list(got) != w {
		t.Fatalf("after the timeout:\n%swant\n%s", list(got), w)
	}
	if got[1].json["partial"] != true {
		t.Errorf("the cut traceback is not told as partial: %v", got[1].json)
	}
	// The rest of the traceback is a stream of its own: its exception line
	// is a finding alone.
	got = h.consume(batch(podLines("a", oomLines[3:5]...)))
	if len(got) != 3 || got[0].id != "" || got[2].json["line"] != 2.0 || got[2].json["end_line"] != 2.0 {
		t.Errorf("the rest of the dropped stream's traceback:\n%s%v", list(got), got[len(got)-1].json)
	}
}

// At most max_streams are diagnosed at once: a new one drops the stream
// idle longest, whose open events are told.
func TestMaxStreams(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.MaxStreams = 2
	h := start(t, cfg)
	for _, pod := range []string{"a", "b", "c"} {
		got := h.consume(batch(podLines(pod, oomLines[:3]...)))
		h.clock.add(time.Second)
		if pod != "c" && strings.Contains(list(got), "finding") {
			t.Fatalf("pod %s: a stream was dropped under the limit:\n%s", pod, list(got))
		}
		if pod == "c" && !strings.Contains(list(got), "a: finding found unknown/traceback") {
			t.Fatalf("a third pod did not drop the first:\n%s", list(got))
		}
	}
}

// The records of a pack's own records: a patterns directory's record
// annotates its lines; a broken one stops the processor from being made.
func TestFactoryLoadsPatterns(t *testing.T) {
	dir := t.TempDir()
	rec := `- id: mine/kv-flake
  title: the KV store flaked
  severity: error
  match: {message: "KV store flaked on shard"}
  cause: The KV store lost a shard.
  fix: {steps: [Restart the KV store.]}
  tests: {match: ["KV store flaked on shard 3"]}
`
	if err := os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.Patterns = []string{dir}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	sink := new(consumertest.LogsSink)
	p, err := f.CreateLogs(context.Background(), processortest.NewNopSettings(Type), cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	if err := p.ConsumeLogs(context.Background(), batch(podLines("a", "[2026-11-29 10:15:02] KV store flaked on shard 3"))); err != nil {
		t.Fatal(err)
	}
	got := outputs(sink.AllLogs()[0])
	if len(got) != 2 || got[0].id != "mine/kv-flake" || !got[1].finding || got[1].id != "mine/kv-flake" {
		t.Fatalf("got\n%s", list(got))
	}

	if err := os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("- id: [not, a, string]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreateLogs(context.Background(), processortest.NewNopSettings(Type), cfg, sink); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("a broken patterns directory: %v; want an error naming it", err)
	}
}

// At shutdown the traceback a stream left open is told to the next
// consumer.
func TestShutdownTellsOpenEvents(t *testing.T) {
	h := start(t, createDefaultConfig())
	h.consume(batch(podLines("a", oomLines[:3]...)))
	h.sink.Reset()
	if err := h.p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []out
	for _, ld := range h.sink.AllLogs() {
		got = append(got, outputs(ld)...)
	}
	if w := "a: finding found unknown/traceback error symptom_of=\"\"\n"; list(got) != w {
		t.Errorf("at shutdown:\n%swant\n%s", list(got), w)
	}
}

// Batches of several pods sent at once are each diagnosed whole.
func TestConcurrentBatches(t *testing.T) {
	h := start(t, createDefaultConfig())
	sink := h.sink
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			pod := fmt.Sprintf("p%d", i)
			if err := h.p.ConsumeLogs(context.Background(), batch(podLines(pod, oomLines...))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	found := map[string]int{}
	for _, ld := range sink.AllLogs() {
		for _, o := range outputs(ld) {
			if o.finding {
				found[o.pod+" "+o.id]++
			}
		}
	}
	if len(found) != 16 {
		t.Errorf("findings: %v; want each pod's two", found)
	}
}

func TestShutdownVerifier(t *testing.T) {
	processortest.VerifyShutdown(t, NewFactory(), createDefaultConfig())
}

// BenchmarkHealthyBatch diagnoses batches of 1,000 records of a healthy
// start-up, from four pods interleaved.
func BenchmarkHealthyBatch(b *testing.B) {
	healthy, err := os.ReadFile("../../testdata/logs/healthy-tp8-startup.log")
	if err != nil {
		b.Fatal(err)
	}
	bodies := strings.Split(strings.TrimSuffix(string(healthy), "\n"), "\n")
	var lines []line
	for i := range 1000 {
		lines = append(lines, line{fmt.Sprintf("p%d", i%4), bodies[i/4%len(bodies)]})
	}
	ld := batch(lines)
	p := newProcessor(createDefaultConfig(), builtin(b), consumertest.NewNop(), time.Now)
	var size int64
	for _, l := range lines {
		size += int64(len(l.body)) + 1
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.process(context.Background(), ld); err != nil {
			b.Fatal(err)
		}
	}
}

// Streams are keyed by the stream keys of the resource, then of the
// record, or else by all the resource's attributes: a traceback whose
// lines are in records of two resources of one stream is one finding, and
// the lines of two streams that share a resource are kept apart.
func TestStreamKeys(t *testing.T) {
	type rec struct {
		res, attrs map[string]string
		body       string
	}
	tb := oomLines[1:5]
	file := func(path string) map[string]string { return map[string]string{"log.file.path": path} }
	host := map[string]string{"host.name": "gpu-1"}
	for _, tc := range []struct {
		name    string
		recs    []rec
		sources []string // of the finding records
	}{
		{"one pod in two resources", []rec{
			{map[string]string{"k8s.pod.name": "a", "x": "1"}, nil, tb[0]},
			{map[string]string{"k8s.pod.name": "a", "x": "2"}, nil, tb[1]},
			{map[string]string{"k8s.pod.name": "a", "x": "1"}, nil, tb[2]},
			{map[string]string{"k8s.pod.name": "a", "x": "2"}, nil, tb[3]},
		}, []string{"a"}},
		{"two files of one host", []rec{
			{host, file("/x.log"), tb[0]}, {host, file("/y.log"), tb[0]},
			{host, file("/x.log"), tb[1]}, {host, file("/y.log"), tb[1]},
			{host, file("/x.log"), tb[2]}, {host, file("/y.log"), tb[2]},
			{host, file("/x.log"), tb[3]}, {host, file("/y.log"), tb[3]},
		}, []string{"gpu-1 /x.log", "gpu-1 /y.log"}},
		{"no stream key", []rec{
			{map[string]string{"b": "2", "a": "1"}, nil, tb[0]}, {nil, nil, tb[0]},
			{map[string]string{"a": "1", "b": "2"}, nil, tb[1]}, {nil, nil, tb[1]},
			{map[string]string{"b": "2", "a": "1"}, nil, tb[2]}, {nil, nil, tb[2]},
			{map[string]string{"a": "1", "b": "2"}, nil, tb[3]}, {nil, nil, tb[3]},
		}, []string{"a=1,b=2", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, createDefaultConfig())
			ld := plog.NewLogs()
			for _, r := range tc.recs {
				rl := ld.ResourceLogs().AppendEmpty()
				for k, v := range r.res {
					rl.Resource().Attributes().PutStr(k, v)
				}
				lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
				lr.Body().SetStr(r.body)
				for k, v := range r.attrs {
					lr.Attributes().PutStr(k, v)
				}
			}
			var sources []string
			for _, o := range h.consume(ld) {
				if o.finding {
					if o.id != "torch/cuda-oom" || o.json["line"] != 1.0 || o.json["end_line"] != 4.0 {
						t.Errorf("finding %s at %v-%v; want torch/cuda-oom at 1-4", o.id, o.json["line"], o.json["end_line"])
					}
					sources = append(sources, o.json["source"].(string))
				}
			}
			if strings.Join(sources, "|") != strings.Join(tc.sources, "|") {
				t.Errorf("findings in %q; want %q", sources, tc.sources)
			}
		})
	}
}

// A traceback told at the end of a batch as it stood, which the next
// batch's chained exception makes another finding, is withdrawn by a
// finding record of its own before the new finding's.
func TestFindingWithdrawnByTheNextBatch(t *testing.T) {
	h := start(t, createDefaultConfig())
	unknown := [3]string{"unknown/traceback", "error", ""}
	one := podLines("a",
		"[2026-11-29 10:15:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
		`  File "/x/y.py", line 3, in f`,
		"ValueError: the weights are not where they should be")
	two := podLines("a", "", "During handling of the above exception, another exception occurred:", "",
		"Traceback (most recent call last):",
		`  File "/x/model_runner.py", line 1090, in load_model`,
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
		"[2026-11-29 10:15:04] next")
	w := want(one, map[int][3]string{0: unknown, 1: unknown, 2: unknown}, `a: finding found unknown/traceback error symptom_of=""`)
	if got := list(h.consume(batch(one))); got != w {
		t.Fatalf("first batch:\n%swant\n%s", got, w)
	}
	got := h.consume(batch(two))
	w = want(two, map[int][3]string{0: oom, 1: oom, 2: oom, 3: oom, 4: oom, 5: oom},
		`a: finding withdrawn unknown/traceback error symptom_of=""`, `a: finding found torch/cuda-oom error symptom_of=""`)
	if list(got) != w {
		t.Fatalf("second batch:\n%swant\n%s", list(got), w)
	}
	if got[7].json["withdrawn"] != true || got[8].json["line"] != 1.0 {
		t.Errorf("withdrawal %v\nnew finding %v", got[7].json, got[8].json)
	}
}
