// Package diagnose turns inputs into a diagnosis. A Session owns one
// matcher engine per input, merges each input's occurrences into findings,
// pairs prefill and decode servers by their configuration, and answers
// "what has been found so far" at any moment, as reports: inputs that
// belong together (the prefill and decode servers of one deployment, the
// nodes of one job, the streams of one process) in one report, unrelated
// inputs in reports of their own.
//
// Every mode of tailfix gets its findings here: scan and measure read
// whole inputs with Source.Scan; the pipe, run and follow feed bytes as
// they come with Source.Write and receive live Updates; a reader that must
// say what a batch of lines is before it hands the batch on (the collector
// processor in otelcol/) feeds it with Source.Feed and asks with
// Source.Pause which events the batch's lines belong to. What the engine
// makes of the bytes does not depend on their pacing, so a live session
// ends with the same reports as a scan of the same bytes; while an event
// is still open and the input is quiet, the session shows it as it stands
// (a provisional finding) and withdraws that view if the rest of the event
// changes what it is. FromIssues makes the findings of `tailfix check` from
// the problems package launch finds in a launch command, so that they are
// rendered like any other.
package diagnose

import (
	"cmp"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

// UpdateKind says what a live Update is.
type UpdateKind int

const (
	// Found is a new finding at error level or above.
	Found UpdateKind = iota
	// Provisional is a traceback that has been waiting long for its
	// exception line in a quiet input, as it stands: the server may have
	// died mid-traceback, or the rest may still come.
	Provisional
	// Withdrawn takes back a finding shown while its event was still open
	// (an event is shown once it has its exception line and the input is
	// quiet for a moment): the rest of the event made it another finding,
	// which comes as Found.
	Withdrawn
)

// Update is what a live session says as it goes.
type Update struct {
	Kind    UpdateKind
	Finding *Finding
}

// Default waits before an open event of a quiet input is shown as it
// stands.
const (
	// DefaultSettle is for an event that has what makes it complete: its
	// exception line, or a matched log record. Lines of the same event
	// written together arrive well within it.
	DefaultSettle = 100 * time.Millisecond
	// DefaultCut is for a traceback still waiting for its exception line:
	// the server may have died mid-traceback, or the lines come slowly
	// (kubectl logs -f, ssh, a busy host).
	DefaultCut = 3 * time.Second
)

// Options configure a Session.
type Options struct {
	// Update receives live updates, one at a time, in order. It is called
	// with the session locked: it must not call back into the session.
	Update func(Update)
	// Settle and Cut are the waits above; zero means the default.
	Settle, Cut time.Duration
	// MinSeverity is the least severity of a finding that Update shows;
	// zero means error.
	MinSeverity patterns.Severity

	// confirmEveryLine runs each proposed record's regexp on every line
	// (matcher.Engine.ConfirmEveryLine): the reference the reuse of what
	// confirmed on a line's shape is tested against.
	confirmEveryLine bool
}

// Session is a diagnosis of several inputs. Its methods are safe for
// concurrent use; each Source is fed from one goroutine.
type Session struct {
	m   *matcher.Matcher
	opt Options

	mu      sync.Mutex
	sources []*Source
	paired  map[string]bool // prefill/decode disagreements already added
}

// New returns an empty session over a compiled pack.
func New(m *matcher.Matcher, opt Options) *Session {
	if opt.Settle <= 0 {
		opt.Settle = DefaultSettle
	}
	if opt.Cut <= 0 {
		opt.Cut = DefaultCut
	}
	if opt.MinSeverity == 0 {
		opt.MinSeverity = patterns.SeverityError
	}
	return &Session{m: m, opt: opt, paired: make(map[string]bool)}
}

// SourceOptions describe an input.
type SourceOptions struct {
	// Known is the server's configuration before its log gives its own,
	// such as the command that started it.
	Known matcher.Config
	// Group names inputs that belong together whatever their
	// configuration says: the stdout and stderr of one process.
	Group string
}

// Source is one input of a session: a file, stdin, a child's stream.
type Source struct {
	s     *Session
	name  string
	idx   int
	group string
	eng   *matcher.Engine
	live  *matcher.Live
	// shows is true for an input read live: its findings are shown as
	// they come. fed is true for an input fed with Feed.
	shows, fed bool

	// Guarded by s.mu.
	corr    *correlator
	cfg     matcher.Config // the configuration the log gave, or known
	command matcher.Config // the latest launch command the log showed
	cfgLine int64
	lines   int64
	prov    []provisional   // shown events that are still open
	hinted  map[string]bool // keys shown live
	seen    []seen          // a fed input's occurrences since the last Pause
	paused  []Span          // the open events the last Pause returned
}

// seen is an occurrence of a fed input: the finding it went to, and its
// lines.
type seen struct {
	f             *Finding
	line, endLine int64
}

// provisional is an open event shown as it stands.
type provisional struct {
	start int64 // the event's first line
	key   string
	f     *Finding
	shown bool // it was shown (another event of the same key may have been instead)
}

// Add opens an input named name.
func (s *Session) Add(name string, opt SourceOptions) *Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	src := &Source{s: s, name: name, idx: len(s.sources), group: opt.Group,
		corr: newCorrelator(), cfg: opt.Known, hinted: make(map[string]bool)}
	src.eng = s.m.NewEngine(name, src.emit)
	if s.opt.confirmEveryLine {
		src.eng.ConfirmEveryLine()
	}
	if opt.Known != nil {
		src.eng.KnowConfig(opt.Known)
	}
	src.eng.ReadCommands(func(text string) matcher.Config {
		c := logCommand(text)
		if c != nil {
			s.mu.Lock()
			src.command = c
			s.mu.Unlock()
		}
		return c
	})
	s.sources = append(s.sources, src)
	return src
}

// Name is the input's name.
func (src *Source) Name() string { return src.name }

// Lines is the number of lines diagnosed so far.
func (src *Source) Lines() int64 {
	src.s.mu.Lock()
	defer src.s.mu.Unlock()
	return src.lines
}

// Found is the number of distinct findings so far, at error level or
// above. It may be called while another goroutine scans.
func (src *Source) Found() int {
	src.s.mu.Lock()
	defer src.s.mu.Unlock()
	n := 0
	for _, f := range src.corr.findings {
		if f.Severity >= patterns.SeverityError {
			n++
		}
	}
	return n
}

// Scan reads r to its end, matching on every core, and ends the input. A
// read error is returned after the lines before it have been diagnosed.
func (src *Source) Scan(r io.Reader) error {
	err := src.eng.Scan(r)
	src.s.mu.Lock()
	defer src.s.mu.Unlock()
	src.publish()
	return err
}

// Start begins live feeding with workers goroutines running the
// automaton. Write, Break, Restart and Close may be called after it.
func (src *Source) Start(workers int) {
	src.shows = true
	src.live = src.eng.Live(workers, src.tick)
}

// Write feeds bytes as they come, split anywhere. It never fails.
func (src *Source) Write(p []byte) (int, error) { return src.live.Write(p) }

// Break ends a partial last line: the bytes written next do not continue
// it.
func (src *Source) Break() { src.live.Break() }

// Feed diagnoses bytes of an input that is neither scanned nor started,
// split anywhere, on the caller's goroutine: the updates they make come
// before it returns. It is for a reader that gets lines in batches and
// says what they are before it hands them on; it calls Pause after each
// batch, and Close at the end.
func (src *Source) Feed(p []byte) {
	src.fed, src.shows = true, true
	src.eng.Write(p)
}

// Seen is an occurrence in a fed input: the lines of one event, and its
// finding as a live reader sees it (linked to its cause).
type Seen struct {
	Finding       *Finding
	Line, EndLine int64
}

// Pause says that a fed input has nothing more for now. Its open events
// that have what makes them complete are shown as they stand, as a live
// input shows them once quiet for the settle wait; a traceback still
// waiting for its exception line stays open. It returns the occurrences
// since the last Pause, in the order their events ended, then those
// complete events as they stand, unless the last Pause returned them as
// they stand now (they come again when they end).
func (src *Source) Pause() []Seen {
	s := src.s
	src.tick(0)
	src.tick(s.opt.Settle)
	s.mu.Lock()
	defer s.mu.Unlock()
	last := src.paused
	src.paused = nil
	src.eng.Peek(func(o matcher.Occurrence, settled bool) {
		if !settled {
			return
		}
		sp := Span{o.Line, o.EndLine}
		src.paused = append(src.paused, sp)
		if slices.Contains(last, sp) {
			return
		}
		o.Config = withSides(o.Config)
		k := key(&o)
		f := src.corr.byKey[k]
		for _, p := range src.prov {
			if f == nil && p.start == o.Line && p.key == k {
				f = p.f
			}
		}
		if f == nil {
			f = newFinding(o, k, src.idx)
		}
		src.seen = append(src.seen, seen{f, o.Line, o.EndLine})
	})
	out := make([]Seen, len(src.seen))
	views := make(map[string]*Finding)
	for i, x := range src.seen {
		v := views[x.f.key]
		if v == nil {
			v = s.linked(src, x.f)
			views[x.f.key] = v
		}
		out[i] = Seen{Finding: v, Line: x.line, EndLine: x.endLine}
	}
	clear(src.seen)
	src.seen = src.seen[:0]
	return out
}

// Restart counts lines from 1 again: the bytes written next are the start
// of another file (a followed log was rotated or truncated).
func (src *Source) Restart() { src.live.Restart() }

// Close ends a live input: a partial last line and the open events are
// diagnosed, and provisional findings confirmed or withdrawn.
func (src *Source) Close() {
	if src.live != nil {
		src.live.Close()
	} else {
		src.eng.Flush()
	}
	s := src.s
	s.mu.Lock()
	defer s.mu.Unlock()
	src.publish()
	src.resolve() // every event has ended
	s.pair(src)
}

// emit receives the engine's occurrences. It runs on the goroutine that
// feeds the engine.
func (src *Source) emit(o matcher.Occurrence) {
	o.Config = withSides(o.Config)
	s := src.s
	s.mu.Lock()
	defer s.mu.Unlock()
	// The event a provisional finding showed has ended: what it became
	// is said once, the withdrawal before the new finding.
	for i := 0; i < len(src.prov); i++ {
		if p := src.prov[i]; p.start == o.Line {
			src.prov = slices.Delete(src.prov, i, i+1)
			i--
			if p.key != key(&o) {
				src.withdraw(p)
			}
		}
	}
	f, isNew := src.corr.add(o, src.idx)
	if f != nil && src.fed {
		src.seen = append(src.seen, seen{f, o.Line, o.EndLine})
	}
	if f != nil && isNew {
		src.found(f)
	}
}

// found shows a new finding live, once per key.
func (src *Source) found(f *Finding) {
	s := src.s
	if s.opt.Update == nil || !src.shows || f.Severity < s.opt.MinSeverity || src.hinted[f.key] {
		return
	}
	src.hinted[f.key] = true
	s.opt.Update(Update{Kind: Found, Finding: s.linked(src, f)})
}

// withdraw takes back a shown view of an event that became another
// finding, unless the finding exists anyway. When another open event of
// the same key is still there, the view is now that event's.
func (src *Source) withdraw(p provisional) {
	if !p.shown || src.corr.has(p.key) {
		return
	}
	for i := range src.prov {
		if src.prov[i].key == p.key {
			src.prov[i].shown, src.prov[i].f = true, p.f
			return
		}
	}
	delete(src.hinted, p.key)
	if src.s.opt.Update != nil {
		src.s.opt.Update(Update{Kind: Withdrawn, Finding: p.f})
	}
}

// resolve settles the provisional findings whose events have ended.
func (src *Source) resolve() {
	var ended []provisional
	src.prov = slices.DeleteFunc(src.prov, func(p provisional) bool {
		if !src.eng.IsOpen(p.start) {
			ended = append(ended, p)
			return true
		}
		return false
	})
	for _, p := range ended {
		src.withdraw(p)
	}
}

// tick runs on the goroutine that feeds the engine: after each block with
// quiet 0, and again while the input stays quiet. It returns how long to
// wait before it is called again.
func (src *Source) tick(quiet time.Duration) time.Duration {
	s := src.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if quiet == 0 {
		src.publish()
		src.resolve()
		if !src.eng.Open() {
			return 0
		}
		return s.opt.Settle
	}
	var next time.Duration
	src.eng.Peek(func(o matcher.Occurrence, settled bool) {
		o.Config = withSides(o.Config)
		wait := s.opt.Cut
		if settled {
			wait = s.opt.Settle
		}
		if quiet < wait {
			if next == 0 || wait-quiet < next {
				next = wait - quiet
			}
			return
		}
		src.show(o, settled)
	})
	return next
}

// show shows an open event as it stands, unless it is known already: as
// found when it has what makes it complete (its lines are very likely all
// there), as provisional when it is a traceback still waiting for its
// exception line.
func (src *Source) show(o matcher.Occurrence, settled bool) {
	k := key(&o)
	for i, p := range src.prov {
		if p.start != o.Line {
			continue
		}
		if p.key == k {
			return
		}
		// The event grew into something else while still open.
		src.prov = slices.Delete(src.prov, i, i+1)
		src.withdraw(p)
		break
	}
	f := newFinding(o, k, src.idx)
	f.Provisional = !settled
	src.prov = append(src.prov, provisional{start: o.Line, key: k, f: f})
	s := src.s
	if s.opt.Update == nil || f.Severity < s.opt.MinSeverity || src.corr.knows(&o, k) || src.hinted[k] {
		return
	}
	src.prov[len(src.prov)-1].shown = true
	src.hinted[k] = true
	kind := Found
	if f.Provisional {
		kind = Provisional
	}
	s.opt.Update(Update{Kind: kind, Finding: s.linked(src, f)})
}

// publish copies what the engine knows into the session, where the other
// inputs' goroutines may read it, and pairs the input with the others when
// its configuration is new.
func (src *Source) publish() {
	src.lines = src.eng.Lines()
	sa, line := src.eng.ServerConfig()
	if sa == nil || matcher.Config(sa) == src.cfg {
		return
	}
	src.cfg, src.cfgLine = sa, line
	if src.shows {
		src.s.pair(src)
	}
}

// pair adds the disagreements between the prefill and decode servers of
// src's report, each once: as soon as both configurations are known in a
// live session, at the end of a scan.
func (s *Session) pair(src *Source) {
	s.pairGroup(s.groupOf(src))
}

// groupOf returns the inputs that belong together with src, src included.
func (s *Session) groupOf(src *Source) []*Source {
	for _, g := range s.groups() {
		if slices.Contains(g, src) {
			return g
		}
	}
	return nil
}

func (s *Session) pairGroup(g []*Source) {
	var servers []serverConfig
	for _, in := range g {
		if in.cfg != nil {
			servers = append(servers, serverConfig{Source: in.name, Line: in.cfgLine, Config: in.cfg})
		}
	}
	if len(servers) < 2 {
		return
	}
	for _, o := range pdMismatches(s.m.Pack(), servers) {
		k := o.ID + "\x00" + o.Message
		if s.paired[k] {
			continue
		}
		s.paired[k] = true
		for _, in := range g {
			if in.name == o.Source {
				if f, isNew := in.corr.add(o, in.idx); f != nil && isNew {
					in.found(f)
				}
				break
			}
		}
	}
}

// linked is f as a live reader should see it: with the cause it follows
// from among what its report holds so far.
func (s *Session) linked(src *Source, f *Finding) *Finding {
	c := *f
	g := s.groupOf(src)
	fs := merged(g)
	if !slices.ContainsFunc(fs, func(x *Finding) bool { return x.key == f.key && x.src == f.src }) {
		fs = append(fs, &c)
	}
	markReady(fs, g)
	order(fs)
	for _, x := range fs {
		if x.key == f.key {
			c.RootCause, c.SymptomOf = x.RootCause, x.SymptomOf
		}
	}
	return &c
}

// markReady notes on each finding whether the server of its input said it
// was up and serving after the finding's last line.
func markReady(fs []*Finding, g []*Source) {
	for _, f := range fs {
		f.readyAfter = false
		last := f.EndLine
		for _, sp := range f.Spans {
			last = max(last, sp.EndLine)
		}
		for _, in := range g {
			if in.idx == f.src {
				f.readyAfter = in.eng.ReadyLine() > last
			}
		}
	}
}

// inInput gives findings, which count lines in reading order, the lines
// they have in their inputs: an export read newest line first numbers them
// the other way round.
func inInput(fs []*Finding, g []*Source) {
	for _, f := range fs {
		for _, in := range g {
			if in.idx != f.src {
				continue
			}
			f.Line, f.EndLine = in.eng.InputLines(f.Line, f.EndLine)
			if len(f.Spans) == 0 {
				break
			}
			spans := make([]Span, len(f.Spans))
			for i, sp := range f.Spans {
				spans[i].Line, spans[i].EndLine = in.eng.InputLines(sp.Line, sp.EndLine)
			}
			slices.SortFunc(spans, func(a, b Span) int { return cmp.Compare(a.Line, b.Line) })
			f.Spans = spans
			break
		}
	}
}

// Report is the diagnosis of inputs that belong together.
type Report struct {
	// Sources names the inputs, in the order they were added.
	Sources []string
	// Lines counts the lines read from them.
	Lines int64
	// Findings in reading order: root causes first.
	Findings []*Finding
	// Folded estimates how many distinct unrecognised errors were past
	// what an input keeps and were folded into the summaries of their
	// families (findings whose Folded is set).
	Folded int
}

// Reports returns the diagnosis so far, one report per set of inputs that
// belong together, in the order of their first input. Prefill and decode
// servers are compared first, so that their disagreements are there.
func (s *Session) Reports() []Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Report
	for _, g := range s.groups() {
		s.pairGroup(g)
		r := Report{Findings: merged(g)}
		markReady(r.Findings, g)
		for _, in := range g {
			r.Sources = append(r.Sources, in.name)
			r.Lines += in.lines
			for _, fam := range in.corr.fold.families {
				r.Folded += fam.f.Folded
			}
		}
		order(r.Findings)
		inInput(r.Findings, g)
		out = append(out, r)
	}
	return out
}

// Findings returns every report's findings, one report after the other.
func (s *Session) Findings() []*Finding {
	var out []*Finding
	for _, r := range s.Reports() {
		out = append(out, r.Findings...)
	}
	return out
}

// Current returns every report's findings, as Findings does, with the
// events still open counted in (a traceback of a server that fell quiet
// after it, which the live updates have shown): what a live input has
// found so far.
func (s *Session) Current() []*Finding {
	out := s.Findings()
	byKey := make(map[string]*Finding, len(out))
	for _, f := range out {
		byKey[f.key] = f
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, src := range s.sources {
		for _, p := range src.prov {
			if f := byKey[p.key]; f != nil {
				f.Count++ // one more of a finding the report has
				continue
			}
			c := *p.f
			byKey[p.key] = &c
			out = append(out, &c)
		}
	}
	return out
}

// merged returns copies of the findings of a group of inputs, the same
// error in several of them merged into the copy of its first.
func merged(g []*Source) []*Finding {
	var out []*Finding
	first := make(map[string]*Finding)
	for _, in := range g {
		for _, f := range in.corr.findings {
			if x := first[f.key]; x != nil {
				x.absorb(f)
				continue
			}
			c := *f
			c.Ranks = slices.Clone(f.Ranks)
			if in.command != nil {
				c.Config = orCommand(c.Config, in.command)
			}
			first[f.key] = &c
			out = append(out, &c)
		}
	}
	return out
}

// groups partitions the inputs into the sets that belong together, each
// in input order, the sets in the order of their first input.
func (s *Session) groups() [][]*Source {
	n := len(s.sources)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if together(s.sources[i], s.sources[j]) {
				a, b := find(i), find(j)
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	var out [][]*Source
	at := make(map[int]int)
	for i, src := range s.sources {
		r := find(i)
		k, ok := at[r]
		if !ok {
			k = len(out)
			at[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], src)
	}
	return out
}

// together reports whether two inputs belong in one report: they say so
// (the streams of one process); they are a prefill and a decode server of
// the same model; or they are nodes of one multi-node server, started with
// the same rendezvous address.
func together(a, b *Source) bool {
	if a.group != "" && a.group == b.group {
		return true
	}
	if a.cfg == nil || b.cfg == nil {
		return false
	}
	ma, _ := stringField(a.cfg, "disaggregation_mode")
	mb, _ := stringField(b.cfg, "disaggregation_mode")
	if (ma == "prefill" && mb == "decode") || (ma == "decode" && mb == "prefill") {
		pa, _ := stringField(a.cfg, "model_path")
		pb, _ := stringField(b.cfg, "model_path")
		return pa == "" || pb == "" || launch.ModelName(pa) == launch.ModelName(pb)
	}
	da, _ := stringField(a.cfg, "dist_init_addr")
	db, _ := stringField(b.cfg, "dist_init_addr")
	if da != "" && da == db && ma == mb {
		if n, ok := a.cfg.Lookup("nnodes"); ok {
			if v, ok := pyrepr.IntValue(n); ok && v > 1 {
				return true
			}
		}
	}
	return false
}

// orCommand gives a finding whose event began before any configuration
// was known the launch command the log showed later: a job report after
// the crash ("line 7: 2502678 Killed   python3 -m sglang.launch_server
// …"), or a paste that ends with the command.
func orCommand(c, command matcher.Config) matcher.Config {
	if c == nil {
		return withSides(command)
	}
	if _, ok := c.Lookup("model_path"); ok {
		return c // the server's own configuration
	}
	return orConfig{c, withSides(command)}
}

// orConfig answers from its first configuration, or else its second.
type orConfig struct{ first, second matcher.Config }

func (c orConfig) Lookup(name string) (any, bool) {
	if v, ok := c.first.Lookup(name); ok {
		return v, true
	}
	return c.second.Lookup(name)
}

// logCommand reads a launch command a log shows (a pasted prompt, a
// script's trace, a shell's job report) as the server's configuration. A
// text that is not one, or that sets no flag, gives nil.
func logCommand(text string) matcher.Config {
	table, err := patterns.Flags()
	if err != nil {
		return nil
	}
	c, err := launch.ParseText(text, "launch command in the log", table)
	if err != nil || c == nil || len(c.Args) == 0 {
		return nil
	}
	return c
}
