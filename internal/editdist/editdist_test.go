package editdist

import (
	"math"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b      string
		transpose bool
		limit     int
		want      int
	}{
		{"", "", false, math.MaxInt, 0},
		{"tp-size", "tp-size", false, math.MaxInt, 0},
		{"", "abc", false, math.MaxInt, 3},
		{"kitten", "sitting", false, math.MaxInt, 3},
		{"tp-szie", "tp-size", false, math.MaxInt, 2}, // a swap is two edits
		{"tp-szie", "tp-size", true, math.MaxInt, 1},  // or one
		{"abcdef", "uvwxyz", false, 3, 3},             // stopped at the limit
	}
	for _, tt := range tests {
		if got := Distance([]byte(tt.a), []byte(tt.b), tt.transpose, tt.limit); got != tt.want {
			t.Errorf("Distance(%q, %q, %v, %d) = %d, want %d", tt.a, tt.b, tt.transpose, tt.limit, got, tt.want)
		}
	}
}

// Words are elements as characters are: a word replaced counts one.
func TestDistanceOfWords(t *testing.T) {
	a, b := strings.Split("sglang/port-in-use", "-"), strings.Split("net/address-in-use", "-")
	if got := Distance(a, b, false, math.MaxInt); got != 1 {
		t.Errorf("Distance(%q, %q) = %d, want 1", a, b, got)
	}
}
