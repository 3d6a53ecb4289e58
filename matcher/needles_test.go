package matcher

import (
	"strings"
	"testing"
)

// A generated needle is cut to the window its fellows share least, a
// substring of it; a needle within its limit stays whole; a user's needle
// is cut at the start of a word.
func TestRareWindows(t *testing.T) {
	pend := []pendingNeedle{
		{"Failed to get prefill parallel info", 12, 1, false},
		{"Failed to get world size in", 12, 2, false},
		{"Failed to get gpu memory capacity", 12, 3, false},
		{"short one", 12, 4, false},
		{"Failed to get the widget rack", 12, 5, true},
	}
	got := rareWindows(pend)
	for i, p := range got {
		if len(pend[i].text) <= 12 {
			if p.text != pend[i].text {
				t.Errorf("%q was cut to %q", pend[i].text, p.text)
			}
			continue
		}
		if len(p.text) != 12 || !strings.Contains(pend[i].text, p.text) || p.owner != pend[i].owner {
			t.Errorf("%q: window %q of owner %d", pend[i].text, p.text, p.owner)
		}
		if at := strings.Index(pend[i].text, p.text); p.words && at > 0 && pend[i].text[at-1] != ' ' {
			t.Errorf("%q: window %q does not start a word", pend[i].text, p.text)
		}
		if strings.HasPrefix(p.text, "Failed to ge") {
			t.Errorf("%q: proposed on %q, which every needle here shares", pend[i].text, p.text)
		}
	}
}
