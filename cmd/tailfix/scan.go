package main

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/internal/logtext"
	"github.com/tailfix/tailfix/remedies"
)

type scanCmd struct {
	Files []string `arg:"" name:"FILE" help:"Log files to read, plain or compressed (gzip, zstd, bzip2); - reads stdin. Logs that belong together (a prefill and a decode server, the nodes of one job) are reported together, others each on its own."`
}

func (c *scanCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	sess := diagnose.New(m, diagnose.Options{})
	var failed []error
	for _, name := range c.Files {
		if err := scanOne(e, sess, name); err != nil {
			// Report what could be read; the error is not lost.
			failed = append(failed, err)
			fmt.Fprintf(e.stderr, "tailfix: error: %s\n", remedies.Safe(err.Error()))
		}
	}
	p := e.printer(e.stdout)
	reports := sess.Reports()
	var all []*diagnose.Finding
	for _, r := range reports {
		all = append(all, r.Findings...)
	}
	if e.format == remedies.Markdown {
		// An issue report shows each finding's own lines.
		p = remedies.NewPrinter(e.findings(e.stdout), remedies.Options{Format: remedies.Markdown, Excerpt: excerpts(e, all)})
	}
	for _, r := range reports {
		if err := p.Report(r.Findings, summary(r)); err != nil {
			if errors.Is(err, syscall.EPIPE) {
				// The reader went away (`| head`): the status is still
				// what was found.
				return e.verdict(all)
			}
			return err
		}
	}
	if len(failed) > 0 {
		return silentError{errors.Join(failed...)}
	}
	return e.verdict(all)
}

// scanOne diagnoses one input in the session.
func scanOne(e *env, sess *diagnose.Session, name string) error {
	var r io.Reader = e.stdin
	var size int64
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("cannot open %q: %w", name, unwrapPath(err))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return fmt.Errorf("cannot scan %q: is a directory", name)
		} else if err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		r = f
	}
	// The input is added once it is known to be text; the progress line
	// counts its errors from then on.
	var added atomic.Pointer[diagnose.Source]
	if wantsProgress(e.stderr, size) {
		prog := startProgress(e.stderr, name, size, func() int {
			if src := added.Load(); src != nil {
				return src.Found()
			}
			return 0
		})
		defer prog.finish()
		r = prog.reader(r) // the file's own bytes, compressed or not
	}
	text, err := logtext.Open(r)
	if err != nil {
		return fmt.Errorf("cannot scan %q: %w", name, err)
	}
	defer text.Close()
	if text.Format != "" {
		e.log.Debug().Str("file", name).Str("format", text.Format).Msg("decompressing")
	}
	start := time.Now()
	src := sess.Add(name, diagnose.SourceOptions{})
	added.Store(src)
	err = src.Scan(text)
	e.log.Debug().Str("file", name).Dur("took", time.Since(start)).Msg("scanned")
	if err != nil {
		return fmt.Errorf("read %q after line %d: %w", name, src.Lines(), unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the *PathError wrapper, whose text repeats the file name.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// silentError has already been reported; run only sets the exit status.
type silentError struct{ error }

// excerpts reads, once per file, the lines of each finding's first
// occurrence (at most maxExcerptLines of each) and returns them by source
// and line. Standard input cannot be read again and has none.
func excerpts(e *env, findings []*diagnose.Finding) func(source string, from, to int64) []string {
	want := map[string][][2]int64{}
	for _, f := range findings {
		if f.Source != "-" && f.Line > 0 {
			want[f.Source] = append(want[f.Source], [2]int64{f.Line, min(max(f.EndLine, f.Line), f.Line+maxExcerptLines-1)})
		}
	}
	got := map[string]map[int64][]string{}
	for name, spans := range want {
		lines, err := readSpans(name, spans)
		if err != nil {
			e.log.Debug().Err(err).Str("file", name).Msg("no excerpts")
			continue
		}
		got[name] = lines
	}
	return func(source string, from, _ int64) []string { return got[source][from] }
}

// maxExcerptLines bounds the lines shown of one occurrence.
const maxExcerptLines = 60

// readSpans reads a log once (decompressed as scan reads it) and returns
// the lines of each span, by its first line.
func readSpans(name string, spans [][2]int64) (map[int64][]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text, err := logtext.Open(f)
	if err != nil {
		return nil, err
	}
	defer text.Close()
	of := map[int64][]int64{} // a line → the first lines of the spans that hold it
	last := int64(0)
	for _, sp := range spans {
		for n := sp[0]; n <= sp[1]; n++ {
			of[n] = append(of[n], sp[0])
		}
		last = max(last, sp[1])
	}
	out := map[int64][]string{}
	r := bufio.NewReader(text)
	for n := int64(1); n <= last; n++ {
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			break
		}
		if starts := of[n]; len(starts) > 0 {
			line = ansi.Truncate(strings.TrimRight(line, "\r\n"), 500, "…")
			for _, st := range starts {
				out[st] = append(out[st], line)
			}
		}
	}
	return out, nil
}
