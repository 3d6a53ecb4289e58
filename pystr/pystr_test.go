package pystr

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParsePrefix(t *testing.T) {
	tests := []struct {
		in   string
		want Prefix
		ok   bool
	}{
		{"", 0, true},
		{"r", Raw, true}, {"R", Raw, true},
		{"b", Bytes, true}, {"B", Bytes, true},
		{"u", Unicode, true}, {"U", Unicode, true},
		{"f", Format, true}, {"F", Format, true},
		{"t", Template, true}, {"T", Template, true},
		{"rb", Raw | Bytes, true}, {"bR", Raw | Bytes, true}, {"Rb", Raw | Bytes, true}, {"BR", Raw | Bytes, true},
		{"fr", Raw | Format, true}, {"Rf", Raw | Format, true},
		{"tr", Raw | Template, true}, {"rT", Raw | Template, true},
		{"ur", 0, false}, {"ru", 0, false}, {"ub", 0, false}, {"bu", 0, false},
		{"bf", 0, false}, {"fb", 0, false}, {"ft", 0, false}, {"tb", 0, false},
		{"rr", 0, false}, {"bb", 0, false}, {"Ff", 0, false},
		{"rbf", 0, false}, {"x", 0, false}, {"_", 0, false}, {"1", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParsePrefix(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParsePrefix(%q) = %b, %v, want %b, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPrefixStart(t *testing.T) {
	tests := []struct {
		src  string
		q    int
		want int
	}{
		{`'x'`, 0, 0},
		{`=b'x'`, 2, 1},
		{`=rb'x'`, 3, 1},
		{`(Rf"x"`, 3, 1},
		{`=bb'x'`, 3, 2}, // "bb" is no prefix; the last b is
		{`=xb'x'`, 3, 2},
		{`it's`, 2, 1}, // t is a prefix; that "i" stands before it is the caller's concern
	}
	for _, tt := range tests {
		if got := PrefixStart(tt.src, tt.q); got != tt.want {
			t.Errorf("PrefixStart(%q, %d) = %d, want %d", tt.src, tt.q, got, tt.want)
		}
	}
}

func TestRead(t *testing.T) {
	tests := []struct {
		name, src string
		value     string
		parts     []Part // for a literal with fields
		end       int    // -1: the whole source
	}{
		// Quotes.
		{"single", `'abc'`, "abc", nil, -1},
		{"double", `"abc"`, "abc", nil, -1},
		{"empty", `''`, "", nil, -1},
		{"empty double", `""`, "", nil, -1},
		{"other quote inside", `"it's"`, "it's", nil, -1},
		{"stops at its quote", `'a', 'b'`, "a", nil, 3},
		{"triple single", `'''a 'b' ''c'' "d"'''`, `a 'b' ''c'' "d"`, nil, -1},
		{"triple double", `"""x"""`, "x", nil, -1},
		{"triple empty", `''''''`, "", nil, -1},
		{"triple over lines", "'''one\ntwo\r\nthree'''", "one\ntwo\r\nthree", nil, -1},
		{"triple ends at first three", `'''a''''`, "a", nil, 7},
		{"triple quote before close", `"""say "hi\""""`, `say "hi"`, nil, -1},
		{"non-ASCII", `'é ✓ 😀'`, "é ✓ 😀", nil, -1},

		// Each escape.
		{"backslash", `'a\\b'`, `a\b`, nil, -1},
		{"escaped quote", `'it\'s'`, "it's", nil, -1},
		{"escaped other quote", `'\"'`, `"`, nil, -1},
		{"escaped double quote", `"\"q\""`, `"q"`, nil, -1},
		{"newline and tab", `'line\nnext\ttab'`, "line\nnext\ttab", nil, -1},
		{"control letters", `'\a\b\f\r\v'`, "\a\b\f\r\v", nil, -1},
		{"hex", `'\x41\x7e\xe9'`, "A~é", nil, -1},
		{"hex upper", `'\x4A\x4a'`, "JJ", nil, -1},
		{"u", `'\u00e9\u2014'`, "é—", nil, -1},
		{"U", `'\U0001F600\U00000041'`, "😀A", nil, -1},
		{"octal", `'\101\7\0\12'`, "A\a\x00\n", nil, -1},
		{"octal stops at three digits", `'\1012'`, "A2", nil, -1},
		{"octal stops at 8", `'\18'`, "\x018", nil, -1},
		{"octal above 0o377 in str", `'\777'`, "\u01ff", nil, -1},
		{"N known", `'\N{EM DASH} \N{em dash}'`, "— —", nil, -1},
		{"continuation", "'one \\\ntwo'", "one two", nil, -1},
		{"continuation crlf", "'one \\\r\ntwo'", "one two", nil, -1},
		{"continuation in triple", "'''a\\\nb'''", "ab", nil, -1},

		// Invalid escapes keep their backslash, as Python keeps \d.
		{"unknown escape", `'\q\d+'`, `\q\d+`, nil, -1},
		{"x without digits", `'\xZZ'`, `\xZZ`, nil, -1},
		{"x with one digit", `'\x4'`, `\x4`, nil, -1},
		{"short u", `'\u12'`, `\u12`, nil, -1},
		{"short U", `'\U0001F6'`, `\U0001F6`, nil, -1},
		{"U beyond Unicode", `'\U00110000'`, `\U00110000`, nil, -1},
		{"surrogate", `'\udcff'`, `\udcff`, nil, -1},
		{"N without brace", `'\N'`, `\N`, nil, -1},
		{"N unclosed", `'\N{EM DASH'`, `\N{EM DASH`, nil, -1},
		{"backslash before x escape", `'\\x41'`, `\x41`, nil, -1},

		// Prefixes.
		{"u prefix", `u'x\n'`, "x\n", nil, -1},
		{"U prefix", `U"x"`, "x", nil, -1},
		{"bytes", `b'abc'`, "abc", nil, -1},
		{"bytes hex", `b'\x00\xff'`, "\x00\xff", nil, -1},
		{"bytes octal", `b'\377\400'`, "\xff\x00", nil, -1},
		{"bytes u is text", `b'\u00e9'`, `\u00e9`, nil, -1},
		{"bytes U is text", `B'\U0001F600'`, `\U0001F600`, nil, -1},
		{"bytes N is text", `b'\N{EM DASH}'`, `\N{EM DASH}`, nil, -1},
		{"bytes surrogate byte", `b'\xdc'`, "\xdc", nil, -1},
		{"raw", `r'\n\d+'`, `\n\d+`, nil, -1},
		{"raw quote does not close", `r'\''`, `\'`, nil, -1},
		{"raw backslash pair", `R'\\'`, `\\`, nil, -1},
		{"raw newline after backslash", "r'a\\\nb'", "a\\\nb", nil, -1},
		{"raw bytes", `rb'\d+\x00'`, `\d+\x00`, nil, -1},
		{"raw bytes upper", `BR"\x"`, `\x`, nil, -1},
		{"raw N", `r'\N{EM DASH}'`, `\N{EM DASH}`, nil, -1},

		// f-strings and t-strings.
		{"f plain", `f'abc'`, "abc", nil, -1},
		{"f field", `f'a {x} b'`, "a {x} b", []Part{{Text: "a "}, {Field: "{x}"}, {Text: " b"}}, -1},
		{"f doubled braces", `f'{{x}}'`, "{x}", nil, -1},
		{"f lone close brace", `f'a}b'`, "a}b", nil, -1},
		{"f spec and conversion", `f"{ratio:.2f} {width!r:>10}"`, "{ratio:.2f} {width!r:>10}",
			[]Part{{Field: "{ratio:.2f}"}, {Text: " "}, {Field: "{width!r:>10}"}}, -1},
		{"f nested spec", `f'{n:{w}}!'`, "{n:{w}}!", []Part{{Field: "{n:{w}}"}, {Text: "!"}}, -1},
		{"f nested quotes", `f"{d["key"]}"`, `{d["key"]}`, []Part{{Field: `{d["key"]}`}}, -1},
		{"f nested prefixed literal", `f"{b'x'}"`, `{b'x'}`, []Part{{Field: `{b'x'}`}}, -1},
		{"f brackets", `f'{a[1:2]} {f(x)[0]}'`, "{a[1:2]} {f(x)[0]}",
			[]Part{{Field: "{a[1:2]}"}, {Text: " "}, {Field: "{f(x)[0]}"}}, -1},
		{"f dict in field", `f'{ {"a": 1}["a"] }'`, `{ {"a": 1}["a"] }`, []Part{{Field: `{ {"a": 1}["a"] }`}}, -1},
		{"f not-equal is no conversion", `f'{a != b}'`, "{a != b}", []Part{{Field: "{a != b}"}}, -1},
		{"f space after conversion", `f"{3!s  } {x!r :>4}"`, "{3!s } {x!r :>4}",
			[]Part{{Field: "{3!s }"}, {Text: " "}, {Field: "{x!r :>4}"}}, -1},
		{"f debug", `f'{x=}'`, "x={x!r}", []Part{{Text: "x="}, {Field: "{x!r}"}}, -1},
		{"f debug with space and spec", `f'at {pp_size = :>3}'`, "at pp_size = {pp_size:>3}",
			[]Part{{Text: "at pp_size = "}, {Field: "{pp_size:>3}"}}, -1},
		{"f comparison is no debug", `f'{a==b}'`, "{a==b}", []Part{{Field: "{a==b}"}}, -1},
		{"f escapes around a field", `f'\t{x}\n'`, "\t{x}\n", []Part{{Text: "\t"}, {Field: "{x}"}, {Text: "\n"}}, -1},
		{"f field over lines", "f'''{\n  x  +  y\n}'''", "{ x + y }", []Part{{Field: "{ x + y }"}}, -1},
		{"f backslash before brace", `f'\{x}'`, `\{x}`, []Part{{Text: `\`}, {Field: "{x}"}}, -1},
		{"raw f backslash before brace", `rf'\{x}'`, `\{x}`, []Part{{Text: `\`}, {Field: "{x}"}}, -1},
		{"raw f doubled braces", `Rf"\{{brace and \d"`, `\{brace and \d`, nil, -1},
		{"t-string", `t'{x}'`, "{x}", []Part{{Field: "{x}"}}, -1},
		{"N unknown name is a field", `'a\N{SNOWMAN}b'`, `a\N{SNOWMAN}b`,
			[]Part{{Text: "a"}, {Field: `\N{SNOWMAN}`}, {Text: "b"}}, -1},
		{"braces in a plain literal", `'{x}'`, "{x}", nil, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lit, err := Read(tt.src, 0)
			if err != nil {
				t.Fatalf("Read(%s): %v", tt.src, err)
			}
			end := tt.end
			if end < 0 {
				end = len(tt.src)
			}
			if lit.Value != tt.value || lit.End != end || lit.Start != 0 {
				t.Errorf("Read(%s) = %q [%d:%d], want %q [0:%d]", tt.src, lit.Value, lit.Start, lit.End, tt.value, end)
			}
			if !partsEqual(lit.Parts, tt.parts) {
				t.Errorf("Read(%s) parts = %q, want %q", tt.src, lit.Parts, tt.parts)
			}
		})
	}
}

func partsEqual(a, b []Part) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadShape(t *testing.T) {
	src := `x = rB'''a''' + f"b"`
	lit, err := Read(src, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := Literal{Prefix: Raw | Bytes, Quote: '\'', Triple: true, Start: 4, End: 13, Value: "a"}
	if lit.Prefix != want.Prefix || lit.Quote != want.Quote || lit.Triple != want.Triple ||
		lit.Start != want.Start || lit.End != want.End || lit.Value != want.Value || lit.Parts != nil {
		t.Errorf("Read = %+v, want %+v", lit, want)
	}
	lit, err = Read(src, 16)
	if err != nil || lit.Prefix != Format || lit.Quote != '"' || lit.Triple || lit.End != len(src) || !lit.Prefix.Fields() {
		t.Errorf("Read f-string = %+v, %v", lit, err)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, src string
		at        int
		offset    int
		err       error
	}{
		{"no end", `'abc`, 0, 0, ErrUnterminated},
		{"no end after text", `x = "abc`, 4, 4, ErrUnterminated},
		{"newline in single quotes", "'abc\ndef'", 0, 0, ErrUnterminated},
		{"newline in double quotes", "x(\"a\n\")", 2, 2, ErrUnterminated},
		{"escaped closing quote", `'abc\'`, 0, 0, ErrUnterminated},
		{"dangling backslash", `'abc\`, 0, 0, ErrUnterminated},
		{"raw escaped closing quote", `r'abc\'`, 0, 1, ErrUnterminated},
		{"triple cut", `'''abc''`, 0, 0, ErrUnterminated},
		{"triple prefixed cut", "f\"\"\"a\nb", 0, 1, ErrUnterminated},
		{"field without brace", `f'{x'`, 0, 4, ErrUnterminated}, // the quote opens a literal in the field
		{"field at end", `f'{x`, 0, 2, ErrUnterminatedField},
		{"spec without brace", `f'{x:{y`, 0, 5, ErrUnterminatedField},
		{"conversion without brace", `f'{x!r'`, 0, 2, ErrUnterminatedField},
		{"conversion at the end", `t"000000{!0`, 0, 8, ErrUnterminatedField},
		{"spec cut by newline", "f'{x:>\n}'", 0, 2, ErrUnterminatedField},
		{"literal in field", `f"{d['k}"`, 0, 5, ErrUnterminated},
		{"no quote", `abc`, 0, 0, ErrNotLiteral},
		{"not a prefix", `x'a'`, 0, 0, ErrNotLiteral},
		{"long word", `rbf'a'`, 0, 0, ErrNotLiteral},
		{"at the end", `'a'`, 3, 3, ErrNotLiteral},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(tt.src, tt.at)
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, tt.err) || se.Offset != tt.offset {
				t.Fatalf("Read(%q, %d) = %v, want %v at %d", tt.src, tt.at, err, tt.err, tt.offset)
			}
		})
	}
	_, err := Read(`x = 'abc`, 4)
	if got, want := err.Error(), "byte 4: unterminated string literal"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

// A literal without escapes or fields is read without allocating.
func TestReadAllocs(t *testing.T) {
	src := `'/models/MiniMax-M3-Sparse', tokenizer_mode='auto'`
	n := testing.AllocsPerRun(100, func() {
		if lit, err := Read(src, 0); err != nil || lit.Value != "/models/MiniMax-M3-Sparse" {
			t.Fatal(lit, err)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per plain literal", n)
	}
}

// quote writes s as a literal with the given quote and prefix (u or
// none), escaping what needs it, each escape form in turn.
func quote(s string, q string, prefix string) string {
	var b strings.Builder
	b.WriteString(prefix + q)
	k := 0
	for _, r := range s {
		k++
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r == '\\' || strings.ContainsRune(q, r):
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			if k%2 == 0 {
				b.WriteString(`\x` + hex(uint32(r), 2))
			} else {
				b.WriteString(`\` + octal(uint32(r)))
			}
		case r > 0x7f && k%3 == 0:
			if r > 0xffff {
				b.WriteString(`\U` + hex(uint32(r), 8))
			} else {
				b.WriteString(`\u` + hex(uint32(r), 4))
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(q)
	return b.String()
}

func hex(v uint32, width int) string {
	const digits = "0123456789abcdef"
	out := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		out[i] = digits[v&15]
		v >>= 4
	}
	return string(out)
}

func octal(v uint32) string {
	return string([]byte{'0' + byte(v>>6&7), '0' + byte(v>>3&7), '0' + byte(v&7)})
}

// FuzzRead reads any text: Read never panics, a literal it reads reads the
// same alone and is unterminated without its last byte; and any text,
// written as a literal, reads back as itself.
func FuzzRead(f *testing.F) {
	// Strings sglang prints in its server_args line, as it prints them.
	for _, s := range []string{
		`'/models/MiniMax-M3-Sparse'`, `'mlx5_0,mlx5_1,mlx5_2,mlx5_3'`, `'10.42.7.11:5757'`, `'{}'`, `''`,
		`'{"master_server_address": "10.0.0.3:50051"}'`, `"it's"`, `'/templates/qwen3, v2 (it\'s "new").jinja'`,
		`b'\x00\xff'`, `'\x41\u00e9\U0001F600\\'`, `"say \"hi\"\n"`, `'<not: an enum>'`,
		// String literals from Python source (patterns/testdata/learn).
		`'Single quoted: it\'s "escaped" quotes here'`,
		`f"Ratio {ratio:.2f} exceeds limit {width!r:>10} for {{braces}} kept"`,
		`f"Missing key {cfg['name']} in {', '.join(sorted(cfg))} config section"`,
		`f"Expected divisible sizes: {tp_size=}, {pp_size = }"`,
		"f\"\"\"Multi-line message for {n:{w}} items\nsecond line with {n:>{w}.{w}f} and a {{ brace\"\"\"",
		`r"Raw string keeps \d+ backslash and \n as text"`,
		`Rf"Raw f-string {1} with \{{brace and \d"`,
		`Br"Bytes raw prefix message here \x00"`,
		`f"Same-quote nested string {d["key"]} works in Python 3.12"`,
		`"Unicode escapes: caf\u00e9 \N{EM DASH} done \x41"`,
		`'''Triple single-quoted message with "quotes" and 'apostrophes' inside'''`,
		"\"no end\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for i := 0; i < len(src) && i < 4; i++ {
			lit, err := Read(src, i)
			if err != nil {
				var se *SyntaxError
				if !errors.As(err, &se) || se.Offset < i || se.Offset > len(src) {
					t.Fatalf("Read(%q, %d): %v", src, i, err)
				}
				continue
			}
			if lit.Start != i || lit.End <= i || lit.End > len(src) {
				t.Fatalf("Read(%q, %d) = [%d:%d]", src, i, lit.Start, lit.End)
			}
			alone, err := Read(src[:lit.End], i)
			if err != nil || alone.Value != lit.Value || !partsEqual(alone.Parts, lit.Parts) {
				t.Fatalf("Read(%q, %d) = %q; cut after it: %q, %v", src, i, lit.Value, alone.Value, err)
			}
			if _, err := Read(src[:lit.End-1], i); !errors.Is(err, ErrUnterminated) && !errors.Is(err, ErrUnterminatedField) {
				t.Fatalf("Read(%q) without its last byte: %v", src[i:lit.End], err)
			}
			if lit.Parts != nil {
				var b strings.Builder
				for _, p := range lit.Parts {
					if (p.Text == "") == (p.Field == "") {
						t.Fatalf("Read(%q): part %+v", src, p)
					}
					b.WriteString(p.Text + p.Field)
				}
				if b.String() != lit.Value {
					t.Fatalf("Read(%q): parts %q, value %q", src, lit.Parts, lit.Value)
				}
			}
		}
		if !utf8.ValidString(src) {
			return
		}
		for k, form := range [][2]string{{`'`, ""}, {`"`, "u"}, {`'''`, ""}, {`"""`, "U"}} {
			lit := quote(src, form[0], form[1])
			got, err := Read(lit+", x", 0)
			if err != nil || got.Value != src || got.End != len(lit) {
				t.Fatalf("form %d: %q reads as %q [:%d], %v", k, lit, got.Value, got.End, err)
			}
		}
	})
}
