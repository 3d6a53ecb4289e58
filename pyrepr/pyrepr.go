// Package pyrepr reads what Python's repr() prints: the literals of a repr
// (None, True, numbers, strings, lists, tuples, sets, dicts, enums) and
// nested reprs such as PhaseConfig(backend='full'). Its main use is the
// configuration sglang prints once at start-up, the
// "server_args=ServerArgs(key=value, …)" line of about 14,000 bytes:
// FindServerArgs finds it in a log line, ParseServerArgs reads it into a
// ServerArgs, whose fields answer by name. It also writes values back, as
// a repr (Repr) or as a command line takes them (ServerArgs.Flag).
//
// The matcher calls it on the configuration line of each input and hands
// the ServerArgs on with its findings; remedies fills its before/after
// templates from those fields (IntValue). String literals are read by
// package pystr. pyrepr never prints: a line it cannot read in full is
// kept as far as it could read it.
package pyrepr

import "math"

// Value is a Python literal from a repr: nil (None), bool, int64, float64,
// string, []Value (list, tuple or set), map[string]Value (dict; a key that
// is not a string is kept as its repr, as the log wrote it) or *Call (a
// nested repr such as PhaseConfig(backend='full')).
//
// A few reprs that are not literals are kept as strings: bytes (b'..',
// their bytes), enum-like reprs ("<Enum.X: 'x'>", the whole text) and bare
// names ("torch.bfloat16"). An integer too large for int64 becomes a
// float64. set() and frozenset(...) are sets, so []Value.
type Value = any

// Call is a nested repr such as PhaseConfig(backend='full', max_bs=256) or
// device(type='cuda'). Positional arguments are keyed by their position
// among the positional ones: "0", "1", ….
type Call struct {
	Name  string
	Args  map[string]Value
	Order []string // Args' keys in the order the repr gave them
}

// IntValue is a configuration value as an integer: an int, or a float
// with no fraction ("300.0").
func IntValue(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && n >= -(1<<63) && n < 1<<63 {
			return int64(n), true
		}
	}
	return 0, false
}
