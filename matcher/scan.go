package matcher

import (
	"errors"
	"io"
	"runtime"
	"sync"
)

// blockSize is the unit of reading and of parallel prefiltering.
const blockSize = 4 << 20

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
// before it have been processed.
func (e *Engine) Scan(r io.Reader) error {
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
			for j := range work {
				j.cands, j.norm = e.m.candidates(j.buf, j.cands[:0], j.norm)
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
