package matcher

import (
	"strings"
	"testing"
)

// A generated needle is cut to the window its fellows share least, a
// substring of it; a needle within its limit stays whole.
func TestRareWindows(t *testing.T) {
	pend := []pendingNeedle{
		{"Failed to get prefill parallel info", 12, 1},
		{"Failed to get world size in", 12, 2},
		{"Failed to get gpu memory capacity", 12, 3},
		{"short one", 12, 4},
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
		if strings.HasPrefix(p.text, "Failed to ge") {
			t.Errorf("%q: proposed on %q, which every needle here shares", pend[i].text, p.text)
		}
	}
}
