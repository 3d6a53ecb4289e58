package matcher

import (
	"sync"
	"time"
)

// Live feeds an engine from a live source: a pipe, a followed file, a
// child's output. Each block is matched as soon as it arrives, the
// automaton running on several goroutines while one goroutine assembles
// events in order, so a fast producer is not held back by matching on one
// core.
//
// Live never ends an event because the input paused: what the engine
// makes of the bytes does not depend on their pacing. A reader that wants
// to say something about an event still open while the input is quiet
// asks for a tick and looks with Engine.Peek.
//
// Write, Break and Restart are called from one goroutine; the engine's
// emit function and the tick are called from Live's own goroutine, never
// concurrently with each other.
type Live struct {
	e        *Engine
	tick     func(quiet time.Duration) time.Duration
	framer   framer
	free     chan *job
	work     chan *job
	order    chan *job
	workers  sync.WaitGroup
	consumer sync.WaitGroup
	closed   bool
}

// Live starts feeding e: workers goroutines run the automaton (at least
// one). tick, when not nil, is called on the goroutine that assembles
// events: with 0 after each block has been assembled, and with how long
// the input has been quiet once the wait it last asked for has passed. It
// returns how long to wait before the next quiet call; 0 waits for input.
func (e *Engine) Live(workers int, tick func(quiet time.Duration) time.Duration) *Live {
	workers = max(workers, 1)
	inflight := 2*workers + 1
	l := &Live{e: e, tick: tick,
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
			var memo quietShapes // of the blocks this worker searched
			for j := range l.work {
				if !j.restart {
					j.cands, j.norm = e.m.candidatesQuiet(j.buf, j.cands[:0], j.norm, &memo)
				}
				j.done <- struct{}{}
			}
		}()
	}
	l.consumer.Add(1)
	go l.consume()
	return l
}

// consume assembles the blocks in order and ticks while the input is
// quiet.
func (l *Live) consume() {
	defer l.consumer.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var quiet <-chan time.Time
	var last time.Time // when the last block was assembled
	wait := func(d time.Duration) {
		timer.Stop()
		quiet = nil
		if d > 0 {
			timer.Reset(d)
			quiet = timer.C
		}
	}
	for {
		select {
		case j, ok := <-l.order:
			if !ok {
				return
			}
			<-j.done
			if j.restart {
				l.e.Restart()
			} else {
				l.e.feedLines(j.buf, j.cands)
			}
			l.free <- j
			last = time.Now()
			if l.tick != nil {
				wait(l.tick(0))
			}
		case <-quiet:
			quiet = nil
			if len(l.order) > 0 {
				continue // more input is here: its block ticks
			}
			wait(l.tick(time.Since(last)))
		}
	}
}

// Write hands bytes to the engine. Whole lines are sent on at once; a
// partial last line waits for its end, for Break or for Close. Write blocks
// only while matching is behind by more than a few blocks.
func (l *Live) Write(p []byte) (int, error) {
	head, body, tail := l.framer.frame(p)
	l.send(head, body)
	l.send(tail, nil)
	return len(p), nil
}

// Break ends a partial last line: the bytes written next do not continue
// it (a followed file was rotated).
func (l *Live) Break() {
	l.send(l.framer.end(), nil)
}

// Restart ends a partial last line and what is open, and counts lines
// from 1 again: the bytes written next start another file.
func (l *Live) Restart() {
	l.Break()
	j := <-l.free
	j.buf, j.restart = j.buf[:0], true
	l.work <- j
	l.order <- j
}

// send dispatches a block made of a and b, whole lines.
func (l *Live) send(a, b []byte) {
	if len(a)+len(b) == 0 {
		return
	}
	j := <-l.free
	j.buf = append(append(j.buf[:0], a...), b...)
	j.restart = false
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
