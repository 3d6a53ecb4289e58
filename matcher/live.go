package matcher

import (
	"bytes"
	"sync"
	"time"
)

// Live feeds an engine from a live source: a pipe, a followed file, a
// child's output. Each block is matched as soon as it arrives, the
// automaton running on several goroutines while one goroutine assembles
// events in order, so a fast producer is not held back by matching on one
// core. An event still open when the input goes quiet for the idle time is
// closed, so that the last error of a server that died is reported then,
// not at the end of input that may never come.
//
// Write and Break are called from one goroutine; the engine's emit
// function is called from Live's own goroutine, never concurrently with
// itself.
type Live struct {
	e        *Engine
	idle     time.Duration
	free     chan *job
	work     chan *job
	order    chan *job
	carry    []byte // a partial last line
	skipping bool   // dropping the rest of an overlong line
	workers  sync.WaitGroup
	consumer sync.WaitGroup
	closed   bool
}

// Live starts feeding e: workers goroutines run the automaton (at least
// one), and an event open when no input came for idle is closed (zero: only
// at Close).
func (e *Engine) Live(workers int, idle time.Duration) *Live {
	workers = max(workers, 1)
	inflight := 2*workers + 1
	l := &Live{e: e, idle: idle,
		free:  make(chan *job, inflight),
		work:  make(chan *job, inflight),
		order: make(chan *job, inflight),
	}
	for range inflight {
		l.free <- &job{done: make(chan struct{}, 1)}
	}
	for range workers {
		l.workers.Add(1)
		go func() {
			defer l.workers.Done()
			for j := range l.work {
				j.cands, j.norm = e.m.candidates(j.buf, j.cands[:0], j.norm)
				j.done <- struct{}{}
			}
		}()
	}
	l.consumer.Add(1)
	go l.consume()
	return l
}

// consume assembles the blocks in order and closes events on idle.
func (l *Live) consume() {
	defer l.consumer.Done()
	var idle <-chan time.Time
	var timer *time.Timer
	if l.idle > 0 {
		timer = time.NewTimer(l.idle)
		timer.Stop()
		defer timer.Stop()
	}
	for {
		select {
		case j, ok := <-l.order:
			if !ok {
				return
			}
			<-j.done
			l.e.feedLines(j.buf, j.cands)
			l.free <- j
			if timer != nil && len(l.e.evs) > 0 {
				timer.Reset(l.idle)
				idle = timer.C
			}
		case <-idle:
			idle = nil
			if len(l.order) > 0 {
				// More input is already here; it may continue the event.
				timer.Reset(l.idle)
				idle = timer.C
				continue
			}
			l.e.CloseEvents()
		}
	}
}

// Write hands bytes to the engine. Whole lines are sent on at once; a
// partial last line waits for its end, for Break or for Close. Write blocks
// only while matching is behind by more than a few blocks.
func (l *Live) Write(p []byte) (int, error) {
	n := len(p)
	if l.skipping {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return n, nil
		}
		p, l.skipping = p[i+1:], false
	}
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		l.carry = append(l.carry, p...)
		if len(l.carry) > MaxLine {
			// One line longer than is matched: send its start and drop
			// the rest up to its newline, as Scan does.
			l.send(append(l.carry[:MaxLine], '\n'), nil)
			l.carry, l.skipping = l.carry[:0], true
		}
		return n, nil
	}
	l.send(l.carry, p[:i+1])
	l.carry = append(l.carry[:0], p[i+1:]...)
	return n, nil
}

// Break ends a partial last line: the bytes written next do not continue
// it (a followed file was rotated).
func (l *Live) Break() {
	if len(l.carry) > 0 {
		l.send(append(l.carry, '\n'), nil)
		l.carry = l.carry[:0]
	}
	l.skipping = false
}

// send dispatches a block made of a and b, whole lines.
func (l *Live) send(a, b []byte) {
	if len(a)+len(b) == 0 {
		return
	}
	j := <-l.free
	j.buf = append(append(j.buf[:0], a...), b...)
	l.work <- j
	l.order <- j
}

// Close processes a partial last line and waits until every line has been
// assembled, then ends the engine's open events. The Live must not be used
// after.
func (l *Live) Close() {
	if l.closed {
		return
	}
	l.closed = true
	l.Break()
	close(l.work)
	close(l.order)
	l.workers.Wait()
	l.consumer.Wait()
	l.e.Flush()
}

// CloseEvents ends the open events and reports them, as at the end of
// input, but keeps a partial last line: more of it may come.
func (e *Engine) CloseEvents() {
	for len(e.evs) > 0 {
		e.closeEvent(0)
	}
}
