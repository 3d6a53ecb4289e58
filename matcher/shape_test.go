package matcher

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestAppendWords(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"rank=3 rid='9e3779b97f4a7c15' room=7001", "rank=\x00N rid='\x00H' room=\x00N"},
		{"at 0x7fA3 and 0x and 0xzz", "at \x00A and 0x and 0xzz"},
		{"TP3 v2 req_12 layer.12.attn", "TP3 v2 req_12 layer.\x00N.attn"},
		{"deadbeefcafe is no id, 1234abcd is", "deadbeefcafe is no id, \x00H is"},
		{"abc1234 short, 12345678 digits", "abc1234 short, \x00N digits"},
		{"7", "\x00N"},
		{"", ""},
	} {
		msg := []byte(tc.msg)
		if got := string(appendShape(nil, msg, appendWords(nil, msg), &coarseSpec)); got != tc.want {
			t.Errorf("%q: shape %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// The digits of a message are found eight bytes at a time: every digit,
// wherever it falls in a word of eight, and no byte that is not one.
func TestNextDigit(t *testing.T) {
	for n := range 2000 {
		b := make([]byte, n%37)
		for i := range b {
			b[i] = byte((i*131 + n*17) % 256)
		}
		want := -1
		for i, c := range b {
			if '0' <= c && c <= '9' {
				want = i
				break
			}
		}
		if got := nextDigit(b, 0); got != want {
			t.Fatalf("%q: %d, want %d", b, got, want)
		}
	}
}

// analyseShape keeps what a regexp can tell apart: the words after the
// bytes from which it reads a number or an id of its own, or the whole
// kind when a match may start inside any such word.
func TestAnalyseShape(t *testing.T) {
	for _, tc := range []struct {
		expr string
		// per kind: "-" not masked, "" all masked, else the bytes after
		// which a word is kept
		want [wordKinds]string
	}{
		{`Decode transfer failed for request rank=(?P<rank>\d+)(?: .*? with exception (?P<cause>.+))?`, [wordKinds]string{"", "=", "="}},
		{`exit code 137`, [wordKinds]string{" ", " ", " "}},
		{`rank=\d{3}`, [wordKinds]string{"=", "=", "="}},
		{`(?i)failed to \w+ shard`, [wordKinds]string{"", "", ""}},
		{`\d+`, [wordKinds]string{"", "-", "-"}},
		{`[a-f]+`, [wordKinds]string{"", "-", "-"}},
		{`\S+\S+`, [wordKinds]string{"-", "-", "-"}},
		{`\bfoo\d+\b`, [wordKinds]string{"", "", ""}},
	} {
		sp := analyseShape(tc.expr)
		if sp == nil {
			t.Errorf("%s: not analysed", tc.expr)
			continue
		}
		for k := range wordKinds {
			got := "-"
			if sp.masked[k] {
				var b []byte
				for c := range 256 {
					if sp.keep[k].has(byte(c)) {
						b = append(b, byte(c))
					}
				}
				got = string(b)
			}
			if got != tc.want[k] {
				t.Errorf("%s: kind %d keeps after %q, want %q", tc.expr, k, got, tc.want[k])
			}
		}
	}
	for _, expr := range []string{`a\Bb`, `(?:\bx)+`, `x{2000}`} {
		if analyseShape(expr) != nil {
			t.Errorf("%s: analysed", expr)
		}
	}
}

// A line of a shape seen before is confirmed by what confirmed on the
// first: for every record of the pack, its own examples and the same
// examples with their masked words changed (other numbers, ids and
// addresses, of other lengths) are confirmed through an engine's cache as
// the record's regexp confirms them one by one.
func TestShapeCacheConfirmsAsRegexp(t *testing.T) {
	m := builtinMatcher(t)
	rng := rand.New(rand.NewPCG(1, 2))
	e := m.NewEngine("x", func(Occurrence) {})
	checked := 0
	for o := range m.pats {
		p := &m.pats[o]
		for _, ex := range p.rec.Tests.Match {
			msg := exampleMessage(ex)
			for v := range 4 {
				variant := msg
				if v > 0 {
					variant = changeWords(rng, msg)
				}
				got, want := e.confirm(int32(o), variant), p.confirm(variant)
				if got != want {
					t.Fatalf("%s on %q: cache says %v, regexp %v (after %q)", p.rec.ID, variant, got, want, msg)
				}
				checked++
			}
		}
	}
	if e.shapes.size() == 0 {
		t.Fatal("nothing was cached")
	}
	t.Logf("%d confirmations, %d shapes cached", checked, e.shapes.size())
}

// exampleMessage is the message of a record's example line, as the engine
// confirms it: normalized, without its header.
func exampleMessage(line string) []byte {
	msg := Normalize(nil, []byte(line))
	_, msg = SplitHeader(msg)
	return msg
}

// changeWords replaces each word of msg a shape may mask with another
// word of its kind, of another length most times.
func changeWords(rng *rand.Rand, msg []byte) []byte {
	var b []byte
	at := 0
	for _, w := range appendWords(nil, msg) {
		b = append(b, msg[at:w.start]...)
		b = append(b, randomWord(rng, int(w.kind))...)
		at = int(w.end)
	}
	return append(b, msg[at:]...)
}

func randomWord(rng *rand.Rand, kind int) string {
	const digits, hex, addr = "0123456789", "0123456789abcdef", "0123456789abcdefABCDEF"
	pick := func(alphabet string, n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return sb.String()
	}
	switch kind {
	case wordNumber:
		return pick(digits, 1+rng.IntN(12))
	case wordHex:
		return pick(hex, 8+rng.IntN(30)) + "a1" // a letter and a digit
	}
	return "0x" + pick(addr, 1+rng.IntN(16))
}

// The cache holds at most two generations of shapes however many
// distinct ones come.
func TestShapeCacheBounded(t *testing.T) {
	m := builtinMatcher(t)
	var n int
	e := m.NewEngine("x", func(Occurrence) { n++ })
	for i := range 5 * shapeEntries {
		fmt.Fprintf(e, "[2026-03-18 10:00:00 TP0] Decode transfer failed for request rank=%d decode_req.req.rid='%s' with exception KVTransferError(bootstrap_room=7): Failed to get kvcache from prefill instance, it might be dead\n",
			i, word26(i))
	}
	e.Flush()
	if n != 5*shapeEntries {
		t.Fatalf("%d occurrences, want %d", n, 5*shapeEntries)
	}
	if got := e.shapes.size(); got > 2*shapeEntries || got < shapeEntries {
		t.Errorf("%d shapes cached, want between %d and %d", got, shapeEntries, 2*shapeEntries)
	}
}

// word26 spells i in letters that are no hexadecimal digit: a word no
// shape masks, so that each line has a shape of its own.
func word26(i int) string {
	var b []byte
	for {
		b = append(b, byte('g'+i%20))
		if i /= 20; i == 0 {
			return string(b)
		}
	}
}
