package remedies

import (
	"fmt"
	"strconv"
	"strings"
)

// Worked parallel layouts: the --tp-size, --dp-size and --pp-size a fix
// moves to when the TP size does not split something evenly, written as
// the flags that change. Each keeps the server's other settings
// consistent: with DP attention the DP size divides the TP size, and the
// GPUs a smaller TP size frees go to pipeline stages (TP × PP kept), so
// the command still uses the GPUs and nodes it had.
const (
	// parallelNow is the server's layout as those flags: the before of a
	// fix that changes it.
	parallelNow = "parallel_now"
	// parallelForHeads splits the attention heads evenly: with DP
	// attention, a larger --dp-size (attention runs on TP / DP ranks);
	// without, the largest TP size that divides both the count the message
	// names and the TP size, the rest in --pp-size.
	parallelForHeads = "parallel_for_heads"
	// parallelForWeights halves the TP size a weight is split over, the
	// rest in --pp-size, with DP attention's --dp-size kept a divisor.
	parallelForWeights = "parallel_for_weights"
	// parallelOnFewer halves the TP size and uses half the GPUs.
	parallelOnFewer = "parallel_on_fewer"
)

// Captures of a divisibility message: "28 is not divisible by 8".
const (
	capNumerator   = "numerator"
	capDenominator = "denominator"
)

// layout is a server's parallelism as far as a fix changes it.
type layout struct {
	tp, dp, pp  int
	dpAttention bool
}

// layout reads the server's parallelism; false when its TP size is unknown.
func (w *workedValues) layout() (layout, bool) {
	tp, ok := w.number("tp_size")
	if !ok || tp < 1 {
		return layout{}, false
	}
	l := layout{tp: int(tp), dp: 1, pp: 1}
	if dp, ok := w.number("dp_size"); ok && dp >= 1 {
		l.dp = int(dp)
	}
	if pp, ok := w.number("pp_size"); ok && pp >= 1 {
		l.pp = int(pp)
	}
	v, _ := w.Values.Lookup("enable_dp_attention")
	l.dpAttention = v == true && l.dp > 1
	return l, true
}

// flags writes the layout as the flags a command line carries: the TP
// size always, the others when they are not 1.
func (l layout) flags() string {
	parts := []string{"--tp-size " + strconv.Itoa(l.tp)}
	if l.dp > 1 {
		parts = append(parts, "--dp-size "+strconv.Itoa(l.dp))
		if l.dpAttention {
			parts = append(parts, "--enable-dp-attention")
		}
	}
	if l.pp > 1 {
		parts = append(parts, "--pp-size "+strconv.Itoa(l.pp))
	}
	return strings.Join(parts, " ")
}

// smallerTP moves the layout to TP size t (a divisor of the current one)
// and keeps what depends on it: DP attention's DP size divides t, and with
// keep the freed GPUs become pipeline stages where the check rules find
// nothing against them on this server (speculative decoding, a PD
// transfer of a sparse-attention model); otherwise they are left idle,
// which idle says.
func (w *workedValues) smallerTP(l layout, t int, keep bool) (next layout, idle string) {
	next = l
	next.tp = t
	if l.dpAttention {
		next.dp = gcd(l.dp, t)
		next.dpAttention = next.dp > 1
	}
	if !keep {
		return next, ""
	}
	staged := next
	staged.pp = l.pp * (l.tp / t)
	if w.Config != nil && len(stopsWith(w.Config, l.flags(), staged.flags())) > 0 {
		return next, fmt.Sprintf("this server cannot take pipeline stages, so %d of each %d GPUs stay idle", l.tp-t, l.tp)
	}
	return staged, ""
}

func (w *workedValues) parallelNow() (string, string, bool) {
	l, ok := w.layout()
	if !ok {
		return "", "", false
	}
	return l.flags(), "", true
}

// parallelForHeads works from the count the message names, when it names
// one; a bare assertion names none, and then the TP size is halved.
func (w *workedValues) parallelForHeads() (string, string, bool) {
	l, ok := w.layout()
	if !ok {
		return "", "", false
	}
	num, known := w.count(capNumerator)
	if known && num%l.tp == 0 {
		// The TP size divides the count: the message's divisor is some
		// other split, and the count says nothing about this one.
		known = false
	}
	if l.dpAttention && l.dp < l.tp {
		// Attention runs on TP / DP ranks: the smallest larger DP size
		// that divides the TP size and leaves a split of the count.
		for dp := l.dp + 1; dp <= l.tp; dp++ {
			if l.tp%dp != 0 || known && num%(l.tp/dp) != 0 {
				continue
			}
			next := l
			next.dp = dp
			why := fmt.Sprintf("With DP attention the attention layers are split over --tp-size / --dp-size = %d / %d = %d ranks", l.tp, l.dp, l.tp/l.dp)
			if known {
				why += fmt.Sprintf(", which does not divide %d; %d / %d = %d does.", num, l.tp, dp, l.tp/dp)
			} else {
				why += fmt.Sprintf("; a --dp-size of %d halves that to %d, and the TP size and GPUs stay as they are.", dp, l.tp/dp)
			}
			return next.flags(), why, true
		}
	}
	t := l.tp / 2
	if known {
		t = gcd(num, l.tp)
	}
	if t < 1 || t >= l.tp || l.tp%t != 0 {
		return "", "", false
	}
	next, idle := w.smallerTP(l, t, true)
	why := fmt.Sprintf("The assertion names no head count: half the TP size, %d → %d", l.tp, t)
	if known {
		why = fmt.Sprintf("%d splits over %d ranks unevenly; the largest TP size that divides both %d and %d is %d", num, l.tp, num, l.tp, t)
	}
	return next.flags(), why + kept(l, next, idle), true
}

// parallelForWeights halves the TP size a weight is split over.
func (w *workedValues) parallelForWeights() (string, string, bool) {
	l, ok := w.layout()
	if !ok || l.tp < 2 || l.tp%2 != 0 {
		return "", "", false
	}
	next, idle := w.smallerTP(l, l.tp/2, true)
	why := fmt.Sprintf("Half the TP size, %d → %d, doubles each rank's slice of the weight", l.tp, next.tp)
	return next.flags(), why + kept(l, next, idle), true
}

// parallelOnFewer halves the TP size and the GPUs with it.
func (w *workedValues) parallelOnFewer() (string, string, bool) {
	l, ok := w.layout()
	if !ok || l.tp < 2 || l.tp%2 != 0 {
		return "", "", false
	}
	next, _ := w.smallerTP(l, l.tp/2, false)
	return next.flags(), "", true
}

// kept ends a layout's arithmetic with where the GPUs went.
func kept(from, to layout, idle string) string {
	var b strings.Builder
	if to.pp != from.pp {
		fmt.Fprintf(&b, "; the GPUs stay in use as --pp-size %d (TP × PP = %d × %d)", to.pp, to.tp, to.pp)
	}
	if to.dp != from.dp && from.dpAttention {
		fmt.Fprintf(&b, "; --dp-size %d → %d, which divides the TP size as DP attention needs", from.dp, to.dp)
	}
	if idle != "" {
		b.WriteString("; " + idle)
	}
	b.WriteString(".")
	return b.String()
}

// count is a positive whole number the message captured.
func (w *workedValues) count(name string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(w.Captures[name]))
	return n, err == nil && n > 0
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
