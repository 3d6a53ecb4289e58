package matcher

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestDeciders(t *testing.T) {
	tests := []struct {
		expr string
		want []string // each decider: a literal as "lit:…", a regex as its text; nil: the regex decides
	}{
		{`Decode transfer failed for request rank=(?P<rank>\d+)(?: .*? with exception (?P<cause>.+))?`,
			[]string{`Decode transfer failed for request rank=[0-9]`}},
		{`A|B \(x: (?P<a>[^)]+)\)(?:, (?P<n>\d+) affected)?`,
			[]string{"lit:A", `B \(x: (?P<a>[^\)]+)\)`}},
		{`(?:\[\w+\] )?Error: boom(?: at .*)?`, []string{"lit:Error: boom"}},
		{`.*?Killed.*`, []string{"lit:Killed"}},
		{`port (\d+)+ in use`, nil},               // nothing at an end to cut
		{`^Error: (.+)$`, nil},                    // anchored at both ends
		{`Error: (.+)$`, nil},                     // anchored at the end
		{`^Error: (?:x)?`, []string{`\AError: `}}, // anchored at the start only
		{`(?i)cuda out of memory(?:\. Tried .*)?`, []string{`(?i:CUDA OUT OF MEMORY)`}},
		{`a(?:b|c.*)`, []string{"lit:ab", "lit:ac"}},
		{`(?:^|Error: )No module named '(?P<module>\w+)'`, []string{`\ANo module named '(?P<module>[0-9A-Z_a-z]+)'`, `Error: No module named '(?P<module>[0-9A-Z_a-z]+)'`}},
		{`(?P<library>[\w.+-]+)\.so: undefined symbol: (?P<symbol>_Z\w+)`, []string{`[\+\-\.0-9A-Z_a-z]\.so: undefined symbol: _Z[0-9A-Z_a-z]` + " from .so: undefined symbol: _Z less 1"}},
		{`(?:^|[^"'])(?:Mooncake memory registration failed|Failed to register memory (?P<addr>0x[0-9a-f]+))`, []string{
			`\A(?:Mooncake memory registration failed|Failed to register memory 0x[0-9a-f])`,
			`[^"']Mooncake memory registration failed` + " from Mooncake memory registration failed less 4",
			`[^"']Failed to register memory 0x[0-9a-f]` + " from Failed to register memory 0x less 4"}},
		{`ab(?:c{2,5})`, []string{"lit:abcc"}},
		{`x?`, nil},   // matches every message
		{`a|b?`, nil}, // one branch matches every message
		{`(`, nil},    // does not parse
	}
	for _, tt := range tests {
		var got []string
		for _, d := range deciders(tt.expr) {
			switch {
			case d.skip != nil:
				got = append(got, fmt.Sprintf("%s from %s less %d", d.re, d.skip, d.width))
			case d.re != nil:
				got = append(got, d.re.String())
			default:
				got = append(got, "lit:"+string(d.lit))
			}
		}
		if strings.Join(got, " | ") != strings.Join(tt.want, " | ") {
			t.Errorf("deciders(%q) = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

// decides reports what a set of deciders says of msg.
func decides(ds []decider, msg []byte) bool {
	for _, d := range ds {
		if d.match(msg) {
			return true
		}
	}
	return false
}

// The deciders say what the regex says, for every record of the built-in
// pack, on the record's own test lines and on a spread of the hand-written
// records' lines.
func TestDecidersAgreeWithTheRegex(t *testing.T) {
	m := builtinMatcher(t)
	var shared []string
	for i := range m.pats {
		if p := &m.pats[i]; !p.gen {
			shared = append(append(shared, p.rec.Tests.Match...), p.rec.Tests.NoMatch...)
		}
	}
	// Every record meets its own lines and a spread of 60 others (30 for
	// a generated record: there are thousands).
	step := max(1, len(shared)/60)
	var others []string
	for i := 0; i < len(shared); i += step {
		others = append(others, shared[i])
	}
	cut := 0
	for i := range m.pats {
		p := &m.pats[i]
		if p.rec.Match.Regex == "" || p.lit != nil || p.gen && i%10 != 0 {
			continue // every hand-written regex, a tenth of the thousands generated
		}
		re, err := regexp.Compile(p.rec.Match.Regex)
		if err != nil {
			continue
		}
		ds := deciders(p.rec.Match.Regex)
		if ds == nil {
			continue
		}
		cut++
		lines := append(append([]string(nil), p.rec.Tests.Match...), p.rec.Tests.NoMatch...)
		if p.gen {
			lines = append(lines, others[:30]...) // thousands of them
		} else {
			lines = append(lines, others...)
		}
		for _, l := range lines {
			msg := Normalize(nil, []byte(l))
			if got, want := decides(ds, msg), re.Match(msg); got != want {
				t.Errorf("%s on %q: deciders say %v, the regex %v", p.rec.ID, l, got, want)
			}
		}
	}
	if cut < 300 {
		t.Fatalf("only %d regexes have deciders", cut)
	}
}

// FuzzDeciders checks on any message that the deciders of a regex say
// what the regex says.
func FuzzDeciders(f *testing.F) {
	seeds := []struct{ expr, msg string }{
		{`Decode transfer failed for request rank=(?P<rank>\d+)(?: .*? with exception (?P<cause>.+))?`, "Decode transfer failed for request rank=3 x"},
		{`Lost connection with prefill instance \(bootstrap_addr: (?P<addr>[^)]+)\)(?:, (?P<affected>\d+) requests affected)?|it might be dead`, "Lost connection with prefill instance (bootstrap_addr: 10.0.0.1:8998)"},
		{`ab(?:c{2,5})+d?`, "abccc"},
		{`(?i)out of memory(?:\. Tried to allocate (?P<size>[\d.]+ [GM]iB))?`, "torch.OutOfMemoryError: CUDA out of memory."},
		{`^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)`, `  File "/x.py", line 3`},
		{`\bport (?P<port>\d+)\b(?: is)?`, "port 31000 is"},
		{`(?:^|Error: )No module named '(?P<module>\w+)'`, "xError: No module named 'sgl_kernel'"},
		{`(?P<library>[\w.+-]+)\.so: undefined symbol: (?P<symbol>_Z\w+)`, "é.so: undefined symbol: _Zx libc.so: undefined symbol: _ZN3c10"},
		{`(?:^|[^"'])(?:Mooncake memory|Failed to register memory (?P<addr>0x[0-9a-f]+))`, "'Mooncake memory x Mooncake memory"},
	}
	for _, s := range seeds {
		f.Add(s.expr, s.msg)
	}
	f.Fuzz(func(t *testing.T, expr, msg string) {
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		ds := deciders(expr)
		if ds == nil {
			return
		}
		if got, want := decides(ds, []byte(msg)), re.MatchString(msg); got != want {
			t.Errorf("deciders of %q on %q say %v, the regex %v", expr, msg, got, want)
		}
	})
}
