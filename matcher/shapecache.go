package matcher

import (
	"bytes"
	"encoding/binary"
)

// shapeCache remembers, for the shapes of the lines an engine has seen
// (see appendShape), whether each record proposed there confirmed: a line
// of a shape seen before is confirmed by a look-up instead of the record's
// regexp. It holds at most 2*shapeEntries shapes, in two generations:
// when the newer is full it becomes the older and the older is dropped,
// and a shape found in the older is moved to the newer, so that what
// keeps coming back stays.
type shapeCache struct {
	off      bool // every proposal is confirmed by its regexp
	cur, old map[string]*shapeEntry
	// The message shaped last, its words, and its entries under the specs
	// asked so far: the records proposed for one line mostly share one.
	msg   []byte
	words []maskWord
	lines []lineShape
	key   []byte
}

// shapeEntry holds what the records confirmed on one shape.
type shapeEntry struct {
	pats []int32
	ok   []bool
}

// lineShape is the entry of the message shaped last under a spec.
type lineShape struct {
	spec  *shapeSpec
	entry *shapeEntry
}

const (
	// shapeEntries bounds a generation of shapes.
	shapeEntries = 2048
	// maxShapeMsg is the longest message whose shape is kept; a longer
	// one is confirmed by the regexps each time.
	maxShapeMsg = 1024
	// maxShapePats bounds the records an entry answers for.
	maxShapePats = 16
)

// ConfirmEveryLine makes the engine run each proposed record's regexp on
// every line, rather than reuse what it decided on an earlier line of the
// same shape: slower, and the reference the reuse is tested against. Call
// it before feeding input.
func (e *Engine) ConfirmEveryLine() { e.shapes.off = true }

// confirm reports whether record o matches a normalized message, as
// pattern.confirm does, reusing the answer for a message of a shape seen
// before.
func (e *Engine) confirm(o int32, msg []byte) bool {
	p := &e.m.pats[o]
	c := &e.shapes
	if c.off || p.lit != nil || len(msg) > maxShapeMsg {
		return p.confirm(msg)
	}
	if p.needles != nil && !p.hasNeedle(msg) {
		return false // no dearer than a look-up
	}
	sp := p.shapeSpec(e.m)
	if sp == nil {
		return p.confirm(msg)
	}
	entry := c.entry(msg, sp)
	if entry == nil {
		return p.confirm(msg)
	}
	for i, q := range entry.pats {
		if q == o {
			return entry.ok[i]
		}
	}
	v := p.confirm(msg)
	if len(entry.pats) < maxShapePats {
		entry.pats, entry.ok = append(entry.pats, o), append(entry.ok, v)
	}
	return v
}

// entry returns the entry of msg's shape under sp, made empty when the
// shape is new, or nil when msg is not shaped. Most records' specs mask
// every word of a message that any spec masks: they share the entry of
// the shape with all of them masked, keyed under spec 0.
func (c *shapeCache) entry(msg []byte, sp *shapeSpec) *shapeEntry {
	if c.msg == nil || !bytes.Equal(c.msg, msg) {
		if bytes.IndexByte(msg, 0) >= 0 {
			return nil
		}
		c.msg = append(c.msg[:0], msg...)
		c.words = appendWords(c.words[:0], msg)
		c.lines = c.lines[:0]
	}
	if !sp.keepsAny(msg, c.words) {
		sp = &coarseSpec
	}
	for _, l := range c.lines {
		if l.spec == sp {
			return l.entry
		}
	}
	c.key = binary.LittleEndian.AppendUint64(c.key[:0], sp.id)
	c.key = appendShape(c.key, msg, c.words, sp)
	entry := c.cur[string(c.key)]
	if entry == nil {
		entry = c.old[string(c.key)]
		if entry == nil {
			entry = &shapeEntry{}
		}
		if c.cur == nil || len(c.cur) >= shapeEntries {
			c.old, c.cur = c.cur, make(map[string]*shapeEntry, shapeEntries)
		}
		c.cur[string(c.key)] = entry
	}
	c.lines = append(c.lines, lineShape{sp, entry})
	return entry
}

// size returns how many shapes the cache holds.
func (c *shapeCache) size() int { return len(c.cur) + len(c.old) }
