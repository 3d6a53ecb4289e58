package matcher

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"io"
	"runtime"
	"sync"
)

// blockSize is the unit of reading and of parallel prefiltering. It
// holds a line of MaxLine bytes and its newline, and is small enough that
// the blocks in flight and their candidates stay a few MiB.
const blockSize = 2 << 20

// A block must hold a whole line of MaxLine bytes, or a longer line is
// never cut (see framer.cut): the build fails if it cannot.
const _ = uint(blockSize - MaxLine - 2)

type job struct {
	buf   []byte // whole lines, each ending in '\n'
	cands []candidate
	norm  []byte
	done  chan struct{}
	// restart asks the engine to count lines from 1 again (Live.Restart).
	restart bool
}

// Scan reads r to its end and feeds every line to e, then flushes e. The
// automaton runs over blocks of lines on up to GOMAXPROCS goroutines while
// the engine consumes them in order; memory stays bounded by the number of
// blocks in flight. A read error is returned as is, after the lines read
// before it have been processed. An export that lists its newest line
// first is read oldest line first (see newestFirst): occurrences number
// their lines in reading order, and InputLines gives their lines in the
// input.
func (e *Engine) Scan(r io.Reader) error {
	br := bufio.NewReaderSize(r, sniffSize)
	head, _ := br.Peek(sniffSize)
	e.spacing.whole = doubleSpaced(head)
	if !newestFirst(head) {
		return e.scan(br)
	}
	// An export that lists the newest line first (a log console's
	// download): read it whole, oldest line first.
	data, err := io.ReadAll(io.LimitReader(br, maxReversed+1))
	if len(data) > maxReversed {
		return cmp.Or(e.scan(io.MultiReader(bytes.NewReader(data), br)), err)
	}
	rev, n := reverseLines(data)
	e.reversed = n
	return cmp.Or(e.scan(bytes.NewReader(rev)), err)
}

// InputLines returns the lines in the input of an occurrence's lines, which
// count in reading order: the same, unless Scan read a newest-first export
// oldest line first.
func (e *Engine) InputLines(line, end int64) (int64, int64) {
	if e.reversed == 0 {
		return line, end
	}
	return e.reversed + 1 - end, e.reversed + 1 - line
}

// sniffSize is how much of an input Scan reads first to tell whether it
// lists its newest line first; maxReversed, the largest such input it
// reverses (a larger one is read as it comes).
const (
	sniffSize   = 1 << 20
	maxReversed = 256 << 20
)

// newestFirst reports whether the start of an input lists its lines
// newest first: the times its lines state go back far more often than
// forward (each time is compared with the last one of its length, so that
// the lines of two formats interleaved do not mix), and a traceback's
// head comes after its frames rather than before them; a traceback says
// as much as tracebackWeight times.
func newestFirst(head []byte) bool {
	var before []byte
	var prev [maxStamp + 1][]byte // the last time of each length
	back, forward := 0, 0
	for n := 0; len(head) > 0 && n < 4096; n++ {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if bytes.Contains(line, tracebackHead) {
			next, _, _ := bytes.Cut(head, []byte("\n"))
			switch {
			case bytes.Contains(next, framePrefix):
				forward += tracebackWeight
			case bytes.Contains(before, framePrefix):
				back += tracebackWeight
			}
		}
		before = line
		t := ParseLine(line).Header.Time
		if len(t) == 0 {
			// An export without labels: the line keeps its words when
			// read, but its time tells the export's order all the same.
			t, _, _ = cutSeverityStamp(line)
		}
		if len(t) == 0 {
			continue
		}
		if len(t) > maxStamp {
			continue
		}
		if p := prev[len(t)]; p != nil {
			switch c := bytes.Compare(t, p); {
			case c < 0:
				back++
			case c > 0:
				forward++
			}
		}
		prev[len(t)] = t
	}
	return back >= 8 && back > 4*forward
}

// maxStamp is the longest time newestFirst compares.
const maxStamp = 40

// tracebackWeight is what a traceback's order counts for against the
// order of two times.
const tracebackWeight = 8

// reverseLines returns data's lines in reverse order, each ending in
// '\n', and how many there are.
func reverseLines(data []byte) ([]byte, int64) {
	data = bytes.TrimSuffix(data, []byte("\n"))
	out := make([]byte, 0, len(data)+1)
	var n int64
	for end := len(data); end >= 0; n++ {
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		out = append(append(out, data[start:end]...), '\n')
		end = start - 1
	}
	return out, n
}

// scan is Scan on an input read as it comes.
func (e *Engine) scan(r io.Reader) error {
	workers := runtime.GOMAXPROCS(0)
	inflight := 2*workers + 1
	free := make(chan *job, inflight)
	for range inflight {
		free <- &job{done: make(chan struct{}, 1)} // its block is made when it is first used
	}
	work := make(chan *job, inflight)
	order := make(chan *job, inflight)

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var memo quietShapes // of the blocks this worker searched
			for j := range work {
				j.cands, j.norm = e.m.candidatesQuiet(j.buf, j.cands[:0], j.norm, &memo)
				j.done <- struct{}{}
			}
		}()
	}

	var readErr error
	go func() {
		defer close(order)
		defer close(work)
		readErr = readBlocks(r, free, func(j *job) {
			work <- j
			order <- j
		})
	}()

	for j := range order {
		<-j.done
		e.feedLines(j.buf, j.cands)
		free <- j
	}
	wg.Wait()
	e.Flush()
	return readErr
}

// readBlocks fills jobs from free with whole lines and sends them, framed
// as every reader frames them (see framer). The last line may lack a
// newline; one is added.
func readBlocks(r io.Reader, free chan *job, send func(*job)) error {
	var f framer
	var carry []byte // start of a line that did not fit the previous block
	for {
		j := <-free
		if cap(j.buf) < blockSize {
			j.buf = make([]byte, 0, blockSize)
		}
		buf := append(j.buf[:0], carry...)
		carry = carry[:0]
		var err error
		for len(buf) < blockSize && err == nil {
			var n int
			n, err = r.Read(buf[len(buf):blockSize])
			kept := f.drop(buf[len(buf) : len(buf)+n])
			buf = buf[:len(buf)+len(kept)]
		}
		if err == nil {
			whole, rest := f.cut(buf)
			carry = append(carry, rest...)
			buf = whole
		} else if len(buf) > 0 && buf[len(buf)-1] != '\n' {
			buf = append(buf, '\n')
		}
		j.buf = buf
		if len(buf) > 0 {
			send(j)
		} else {
			free <- j
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
