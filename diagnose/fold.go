package diagnose

import (
	"math"
	"math/bits"

	"github.com/tailfix/tailfix/matcher"
)

// Folding bounds what an input keeps of errors no record knows, whatever
// the input: the earliest maxUnknown distinct ones are findings of their
// own; each one after those is folded into the summary of its family
// (its id and exception class), which counts its occurrences and
// estimates how many distinct messages it holds. A folded message that
// keeps coming back is promoted to a finding of its own, up to
// maxPromoted of them, so that the most frequent errors are listed
// however late they start.
const (
	// maxUnknown bounds the distinct unrecognised findings one input
	// keeps before it folds: days of follow over a server that logs a new
	// message each minute must not grow without end.
	maxUnknown = 1000
	// maxTracked bounds the folded messages whose recurrences are
	// counted, to find the frequent ones among them.
	maxTracked = 1000
	// promoteAt is how often a folded message must recur, among the
	// tracked, to be promoted; maxPromoted, how many are.
	promoteAt   = 8
	maxPromoted = 100
	// maxFamilies bounds the families: past it, a family is its id alone.
	maxFamilies = 64
)

// folder holds one input's folded errors.
type folder struct {
	families map[famKey]*family
	tracked  map[string]*tracked
	promoted int
}

// family is the summary finding of the errors folded into it, and an
// estimate of how many distinct messages they are.
type family struct {
	f        *Finding
	distinct sketch
}

// tracked is a folded message's recurrences, counted as in the
// Misra-Gries frequent-items summary: weight is decremented with every
// other tracked message's when the table is full, so that a message that
// stays is frequent; seen counts its occurrences since it was tracked,
// which its family counts too, and first is the earliest of them.
type tracked struct {
	weight, seen int
	first        matcher.Occurrence
}

// famKey names a family: an id and an exception class, or past
// maxFamilies an id alone.
type famKey struct{ id, exception string }

// key is the key of the family's summary finding, which cannot be that
// of a finding of its own (see key), which has three parts.
func (k famKey) key() string { return "\x01" + k.id + "\x00" + k.exception }

// familyKey names the family of an unrecognised occurrence.
func (fo *folder) familyKey(o *matcher.Occurrence) famKey {
	k := famKey{o.ID, o.Exception}
	if _, ok := fo.families[k]; ok || len(fo.families) < maxFamilies {
		return k
	}
	return famKey{id: o.ID}
}

// fold counts an occurrence of an unrecognised error of key k past the
// cap. It returns the finding it went to, and whether that finding is new
// (a family's first, or a promoted message).
func (fo *folder) fold(o matcher.Occurrence, k string, src int) (*Finding, bool) {
	if fo.families == nil {
		fo.families = make(map[famKey]*family)
		fo.tracked = make(map[string]*tracked)
	}
	fk := fo.familyKey(&o)
	fam := fo.families[fk]
	isNew := fam == nil
	if isNew {
		f := newFinding(o, fk.key(), src)
		f.Title = "Unrecognised errors, folded"
		if o.ID == matcher.UnknownTraceback {
			f.Title = "Unrecognised tracebacks, folded"
		} else if o.ID == matcher.UnknownWarning {
			f.Title = "Unrecognised warnings of a failure, folded"
		}
		fam = &family{f: f}
		fo.families[fk] = fam
	} else {
		fam.f.merge(&o)
	}
	fam.distinct.add(k)
	fam.f.Folded = fam.distinct.estimate()

	if fo.promoted >= maxPromoted {
		return fam.f, isNew
	}
	t := fo.tracked[k]
	if t == nil {
		if len(fo.tracked) >= maxTracked {
			for tk, x := range fo.tracked {
				if x.weight--; x.weight == 0 {
					delete(fo.tracked, tk)
				}
			}
			return fam.f, isNew
		}
		t = &tracked{first: o}
		fo.tracked[k] = t
	}
	t.weight++
	t.seen++
	if t.weight < promoteAt {
		return fam.f, isNew
	}
	// Frequent: a finding of its own from now on, with the occurrences
	// its family counted since it was tracked.
	delete(fo.tracked, k)
	fo.promoted++
	f := newFinding(t.first, k, src)
	if t.seen > 1 {
		f.merge(&o)
	}
	f.Count = t.seen
	fam.f.Count -= t.seen
	return f, true
}

// sketch estimates the number of distinct strings added to it, within a
// few percent, in constant memory (HyperLogLog with 2^sketchBits
// registers; linear counting while few registers are set). The first
// sketchExact strings are counted exactly.
type sketch struct {
	exact []uint64 // hashes of the first strings, while there are few
	reg   []uint8
	// sum is the sum of 2^-reg[i], zeros the registers still 0: the
	// estimate is worked from them at once.
	sum   float64
	zeros int
}

const (
	sketchBits  = 10
	sketchExact = 64
)

// FoldedExact is the largest Folded that is exact: a larger one is an
// estimate within a few percent.
const FoldedExact = sketchExact

func (s *sketch) add(k string) {
	x := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(k); i++ {
		x ^= uint64(k[i])
		x *= 1099511628211
	}
	x ^= x >> 33 // FNV's high bits mix poorly on short strings
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	if s.reg == nil {
		for _, y := range s.exact {
			if y == x {
				return
			}
		}
		if len(s.exact) < sketchExact {
			s.exact = append(s.exact, x)
			return
		}
		s.reg = make([]uint8, 1<<sketchBits)
		s.sum, s.zeros = 1<<sketchBits, 1<<sketchBits
		for _, y := range s.exact {
			s.set(y)
		}
		s.exact = nil
	}
	s.set(x)
}

func (s *sketch) set(x uint64) {
	i := x >> (64 - sketchBits)
	rho := uint8(bits.LeadingZeros64(x<<sketchBits|1<<(sketchBits-1)) + 1)
	if r := s.reg[i]; rho > r {
		if r == 0 {
			s.zeros--
		}
		s.sum += 1/float64(uint64(1)<<rho) - 1/float64(uint64(1)<<r)
		s.reg[i] = rho
	}
}

func (s *sketch) estimate() int {
	if s.reg == nil {
		return len(s.exact)
	}
	const m = 1 << sketchBits
	e := 0.7213 / (1 + 1.079/m) * m * m / s.sum
	if e <= 2.5*m && s.zeros > 0 {
		e = m * math.Log(float64(m)/float64(s.zeros))
	}
	return int(math.Round(e))
}
