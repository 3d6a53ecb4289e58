package tailfixprocessor

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

// The attributes the processor sets.
const (
	// AttrID, AttrSeverity and AttrSymptomOf are set on the records of a
	// finding's lines, and on its finding record: the finding's id, its
	// severity (info, warning, error or fatal), and for a symptom the id
	// of the finding it follows from.
	AttrID        = "tailfix.id"
	AttrSeverity  = "tailfix.severity"
	AttrSymptomOf = "tailfix.symptom_of"
	// AttrUpdate, on a finding record, says what it tells: "found", a new
	// finding; "provisional", a traceback cut before its exception line
	// that has waited long for it; "withdrawn", a finding told while its
	// event was open that the rest of the event made another finding.
	AttrUpdate = "tailfix.update"
)

// EventName names the finding records; their scope is ScopeName.
const (
	EventName = "tailfix.finding"
	ScopeName = "github.com/tailfix/tailfix/otelcol/tailfixprocessor"
)

// tailfix diagnoses the log streams of the records passing through it.
// Its methods are safe for concurrent use; batches are diagnosed one at a
// time.
type tailfix struct {
	m    *matcher.Matcher
	min  patterns.Severity
	idle time.Duration
	max  int
	next consumer.Logs
	now  func() time.Time

	mu      sync.Mutex
	streams map[string]*stream
	swept   time.Time
	sk      streamKey
	line    []byte            // a record's body as lines
	json    bytes.Buffer      // a finding record's body
	printer *remedies.Printer // writes json
}

// stream is the diagnosis of one log stream: one pod's container, one
// service instance, one file.
type stream struct {
	name    string
	src     *diagnose.Source
	res     pcommon.Resource // the resource of its first record, for its finding records
	lines   int64            // lines fed so far
	last    time.Time        // when a record of it last came
	updates []diagnose.Update
	// The records of the batch being diagnosed, in the order fed.
	recs    []fed
	touched bool
}

// fed is a record of the batch: the lines of the stream its body was.
type fed struct {
	lr          plog.LogRecord
	first, last int64
	sev         patterns.Severity // of the finding it is annotated with, or 0
}

func newProcessor(cfg *Config, m *matcher.Matcher, next consumer.Logs, now func() time.Time) *tailfix {
	least, _ := patterns.ParseSeverity(cfg.MinSeverity) // validated
	p := &tailfix{m: m, min: least, idle: cfg.IdleTimeout, max: cfg.MaxStreams,
		next: next, now: now, streams: make(map[string]*stream),
		sk: streamKey{keys: slices.Clone(cfg.StreamKeys)}}
	p.printer = remedies.NewPrinter(&p.json, remedies.Options{Format: remedies.JSON})
	return p
}

// process diagnoses a batch: it feeds each record's body to its stream,
// annotates the records of the findings the batch's lines belong to, and
// appends a finding record for each new finding, under the resource of its
// stream, after the batch's own records.
func (p *tailfix) process(_ context.Context, ld plog.Logs) (plog.Logs, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var touched, dropped []*stream
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		rl := rls.At(i)
		res := rl.Resource()
		p.sk.resource(res)
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				key, name := p.sk.record(res, lr)
				st := p.streams[string(key)]
				if st == nil {
					if len(p.streams) >= p.max {
						dropped = append(dropped, p.drop(p.oldest()))
					}
					st = p.open(string(key), string(name), res)
				}
				if !st.touched {
					st.touched = true
					touched = append(touched, st)
				}
				st.last = now
				p.feed(st, lr)
			}
		}
	}
	for _, st := range touched {
		for _, x := range st.src.Pause() {
			if x.Finding.Severity >= p.min {
				st.annotate(x)
			}
		}
		p.findings(ld, st, now)
		clear(st.recs)
		st.recs, st.touched = st.recs[:0], false
	}
	if now.Sub(p.swept) >= min(p.idle/4, time.Minute) {
		p.swept = now
		dropped = append(dropped, p.sweep(func(st *stream) bool { return now.Sub(st.last) > p.idle })...)
	}
	for _, st := range dropped {
		p.findings(ld, st, now)
	}
	return ld, nil
}

// feed diagnoses a record's body as the next lines of its stream.
func (p *tailfix) feed(st *stream, lr plog.LogRecord) {
	b := appendBody(p.line[:0], lr.Body())
	if len(b) == 0 || b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	first := st.lines + 1
	st.lines += int64(bytes.Count(b, []byte{'\n'}))
	st.src.Feed(b)
	st.recs = append(st.recs, fed{lr: lr, first: first, last: st.lines})
	p.line = b
}

// appendBody appends a record's body as text: a string or bytes as they
// are, a map or a list as JSON.
func appendBody(dst []byte, v pcommon.Value) []byte {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return append(dst, v.Str()...)
	case pcommon.ValueTypeBytes:
		return append(dst, v.Bytes().AsRaw()...)
	case pcommon.ValueTypeEmpty:
		return dst
	default:
		return append(dst, v.AsString()...)
	}
}

// annotate sets the finding's attributes on the batch's records of an
// occurrence's lines, unless a finding as severe or more already did.
func (st *stream) annotate(x diagnose.Seen) {
	f := x.Finding
	i := sort.Search(len(st.recs), func(i int) bool { return st.recs[i].last >= x.Line })
	for ; i < len(st.recs) && st.recs[i].first <= x.EndLine; i++ {
		r := &st.recs[i]
		if r.sev >= f.Severity {
			continue
		}
		r.sev = f.Severity
		setAttrs(r.lr.Attributes(), f)
	}
}

func setAttrs(a pcommon.Map, f *diagnose.Finding) {
	a.PutStr(AttrID, f.ID)
	a.PutStr(AttrSeverity, f.Severity.String())
	if f.SymptomOf != "" {
		a.PutStr(AttrSymptomOf, f.SymptomOf)
	} else {
		a.Remove(AttrSymptomOf)
	}
}

// findings appends a record for each of the stream's updates, under its
// resource.
func (p *tailfix) findings(ld plog.Logs, st *stream, now time.Time) {
	if len(st.updates) == 0 {
		return
	}
	rl := ld.ResourceLogs().AppendEmpty()
	st.res.CopyTo(rl.Resource())
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(ScopeName)
	for _, u := range st.updates {
		lr := sl.LogRecords().AppendEmpty()
		f := u.Finding
		lr.SetEventName(EventName)
		lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(now))
		if r := st.record(f.Line); r != nil {
			ts := r.lr.Timestamp()
			if ts == 0 {
				ts = r.lr.ObservedTimestamp()
			}
			lr.SetTimestamp(ts)
		}
		num, text := otelSeverity(f.Severity)
		lr.SetSeverityNumber(num)
		lr.SetSeverityText(text)
		setAttrs(lr.Attributes(), f)
		lr.Attributes().PutStr(AttrUpdate, [...]string{"found", "provisional", "withdrawn"}[u.Kind])
		p.json.Reset()
		p.printer.Update(u) // into a buffer: it does not fail
		lr.Body().SetStr(strings.TrimSuffix(p.json.String(), "\n"))
	}
	clear(st.updates)
	st.updates = st.updates[:0]
}

// record returns the batch's record of a line of the stream, or nil.
func (st *stream) record(line int64) *fed {
	i := sort.Search(len(st.recs), func(i int) bool { return st.recs[i].last >= line })
	if i < len(st.recs) && st.recs[i].first <= line {
		return &st.recs[i]
	}
	return nil
}

// otelSeverity maps a finding's severity to OpenTelemetry's.
func otelSeverity(s patterns.Severity) (plog.SeverityNumber, string) {
	switch s {
	case patterns.SeverityFatal:
		return plog.SeverityNumberFatal, "FATAL"
	case patterns.SeverityError:
		return plog.SeverityNumberError, "ERROR"
	case patterns.SeverityWarning:
		return plog.SeverityNumberWarn, "WARN"
	default:
		return plog.SeverityNumberInfo, "INFO"
	}
}

// open starts the diagnosis of a stream.
func (p *tailfix) open(key, name string, res pcommon.Resource) *stream {
	st := &stream{name: name, res: pcommon.NewResource()}
	res.CopyTo(st.res)
	sess := diagnose.New(p.m, diagnose.Options{MinSeverity: p.min,
		Update: func(u diagnose.Update) { st.updates = append(st.updates, u) }})
	st.src = sess.Add(name, diagnose.SourceOptions{})
	p.streams[key] = st
	return st
}

// drop ends the diagnosis of a stream: its open events end, and what they
// are is in its updates.
func (p *tailfix) drop(key string) *stream {
	st := p.streams[key]
	delete(p.streams, key)
	st.src.Close()
	return st
}

// oldest returns the key of the stream idle longest, one the batch has not
// fed if there is one.
func (p *tailfix) oldest() string {
	var key string
	var old *stream
	for k, st := range p.streams {
		if old == nil || old.touched && !st.touched ||
			old.touched == st.touched && cmp(st.last, old.last, k, key) < 0 {
			key, old = k, st
		}
	}
	return key
}

// sweep drops the streams that drop says to, in the order they fell idle.
func (p *tailfix) sweep(drop func(*stream) bool) []*stream {
	var keys []string
	for k, st := range p.streams {
		if drop(st) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp(p.streams[a].last, p.streams[b].last, a, b)
	})
	out := make([]*stream, len(keys))
	for i, k := range keys {
		out[i] = p.drop(k)
	}
	return out
}

func cmp(a, b time.Time, ka, kb string) int {
	if c := a.Compare(b); c != 0 {
		return c
	}
	return strings.Compare(ka, kb)
}

// shutdown ends every stream's diagnosis and sends on the findings that
// their open events make.
func (p *tailfix) shutdown(ctx context.Context) error {
	p.mu.Lock()
	ld := plog.NewLogs()
	now := p.now()
	for _, st := range p.sweep(func(*stream) bool { return true }) {
		p.findings(ld, st, now)
	}
	p.mu.Unlock()
	if ld.LogRecordCount() == 0 {
		return nil
	}
	return p.next.ConsumeLogs(ctx, ld)
}

// streamKey builds the key and the name of records' streams in buffers
// it reuses: first what their resource says, then, for each record, what
// the record adds.
type streamKey struct {
	keys    []string
	missing []string // the stream keys the resource lacks, to look for on each record
	key     []byte   // the resource's part, then the record's
	name    []byte
	rk, rn  int    // the lengths of the resource's part
	all     []byte // all the resource's attributes, when it has no stream key
	kv      []string
}

// resource reads the stream keys of a resource.
func (sk *streamKey) resource(res pcommon.Resource) {
	sk.key, sk.name, sk.missing, sk.all = sk.key[:0], sk.name[:0], sk.missing[:0], sk.all[:0]
	attrs := res.Attributes()
	for _, k := range sk.keys {
		if v, ok := attrs.Get(k); ok {
			sk.add(k, v)
		} else {
			sk.missing = append(sk.missing, k)
		}
	}
	sk.rk, sk.rn = len(sk.key), len(sk.name)
}

func (sk *streamKey) add(k string, v pcommon.Value) {
	s := v.Str()
	if v.Type() != pcommon.ValueTypeStr {
		s = v.AsString()
	}
	sk.key = append(append(append(append(sk.key, k...), 0), s...), 0)
	if len(sk.name) > 0 {
		sk.name = append(sk.name, ' ')
	}
	sk.name = append(sk.name, s...)
}

// record returns the key and the name of a record's stream: the stream
// keys its resource has, and those it lacks that the record has; or, when
// neither has any, all the resource's attributes. They are valid until
// the next call.
func (sk *streamKey) record(res pcommon.Resource, lr plog.LogRecord) (key, name []byte) {
	sk.key, sk.name = sk.key[:sk.rk], sk.name[:sk.rn]
	if len(sk.missing) > 0 {
		attrs := lr.Attributes()
		for _, k := range sk.missing {
			if v, ok := attrs.Get(k); ok {
				sk.add(k, v)
			}
		}
	}
	if len(sk.key) > 0 {
		return sk.key, sk.name
	}
	if len(sk.all) == 0 {
		sk.kv = sk.kv[:0]
		for k, v := range res.Attributes().All() {
			sk.kv = append(sk.kv, k+"="+v.AsString())
		}
		slices.Sort(sk.kv)
		sk.all = append(sk.all, 1)
		if len(sk.kv) == 0 {
			sk.all = append(sk.all, '-')
		}
		for i, kv := range sk.kv {
			if i > 0 {
				sk.all = append(sk.all, ',')
			}
			sk.all = append(sk.all, kv...)
		}
	}
	return sk.all, sk.all[1:]
}
