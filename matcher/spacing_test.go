package matcher

import (
	"strings"
	"testing"
)

func TestDoubleSpaced(t *testing.T) {
	spaced := func(lines ...string) string { return strings.Join(lines, "\n\n") + "\n" }
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"a paste with a blank line after every line", spaced("Traceback (most recent call last):", `  File "a.py", line 1, in f`, "    f()", "ValueError: x"), true},
		{"its own blank lines come out as three", spaced("usage: x", "  [--a A]", "", "", "x: error: bad", "done"), true},
		{"two lines of text together", spaced("a", "b", "c") + "d\ne\n", false},
		{"too few lines to tell", spaced("a", "b", "c"), false},
		{"a plain log", "a\nb\nc\nd\ne\nf\n", false},
		{"a plain log with blank lines", "a\n\nb\nc\n\nd\ne\n", false},
		{"a line cut by the end of the head", spaced("a", "b", "c", "d") + "e", true},
	}
	for _, tt := range tests {
		if got := doubleSpaced([]byte(tt.head)); got != tt.want {
			t.Errorf("%s: doubleSpaced = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Lines the engine skipped count toward the spacing it knows: the blank
// line after the first line of an event that opens in a double-spaced
// stretch is known as spacing.
func TestSpacingSkipped(t *testing.T) {
	var s spacing
	s.skipped([]byte("a\n\nb\n\nc\n\n"), 6)
	if s.push(7, false) {
		t.Error("a line of text is spacing")
	}
	if !s.push(8, true) {
		t.Error("the blank line after an event's first line, in a double-spaced stretch, is not spacing")
	}
	s = spacing{}
	s.skipped([]byte("a\nb\nc\nd\n"), 4)
	s.push(5, false)
	if s.push(6, true) {
		t.Error("a blank line after lines of text together is spacing")
	}
}
