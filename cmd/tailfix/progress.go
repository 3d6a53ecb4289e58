package main

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/tailfix/tailfix/remedies"
)

// progressMin is the size from which a scan to a terminal shows its
// progress: smaller files are read before anyone would look.
var progressMin int64 = 100 << 20

// progressEvery is how often the progress line is redrawn.
var progressEvery = 500 * time.Millisecond

// wantsProgress reports whether a scan of size bytes shows progress on w:
// only on a terminal, never into a pipe or a file, and only for a file
// big enough to take a while.
func wantsProgress(w io.Writer, size int64) bool {
	if size < progressMin {
		return false
	}
	return isTerminal(w)
}

// progress redraws one line on a terminal while a file is scanned: how
// much is read, how fast, the errors found so far and the time left.
type progress struct {
	w     io.Writer
	name  string
	total int64
	read  atomic.Int64
	found func() int
	start time.Time
	now   func() time.Time
	stop  chan struct{}
	done  chan struct{}
}

// startProgress begins redrawing every progressEvery until finish.
func startProgress(w io.Writer, name string, total int64, found func() int) *progress {
	p := &progress{w: w, name: remedies.Safe(name), total: total, found: found,
		start: time.Now(), now: time.Now, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				fmt.Fprint(p.w, "\r\x1b[K") // the line goes; the report follows
				return
			case <-t.C:
				fmt.Fprint(p.w, "\r\x1b[K"+p.line())
			}
		}
	}()
	return p
}

// reader counts the bytes read through r toward the progress.
func (p *progress) reader(r io.Reader) io.Reader { return &countingReader{r: r, n: &p.read} }

// finish clears the progress line.
func (p *progress) finish() {
	close(p.stop)
	<-p.done
}

// line is the progress as it stands.
func (p *progress) line() string {
	read := p.read.Load()
	s := fmt.Sprintf("scanning %s: %s of %s (%d%%)", p.name, mib(read), mib(p.total), percent(read, p.total))
	if secs := p.now().Sub(p.start).Seconds(); secs > 0 && read > 0 {
		rate := float64(read) / secs
		s += fmt.Sprintf(" · %.0f MB/s", rate/1e6)
		if left := float64(p.total-read) / rate; left >= 0 {
			s += fmt.Sprintf(" · %s left", time.Duration(left*float64(time.Second)).Round(time.Second))
		}
	}
	switch n := p.found(); n {
	case 0:
		s += " · no errors so far"
	case 1:
		s += " · 1 error so far"
	default:
		s += fmt.Sprintf(" · %d errors so far", n)
	}
	return s
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

func percent(n, of int64) int64 {
	if of <= 0 {
		return 0
	}
	return min(100, 100*n/of)
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}
