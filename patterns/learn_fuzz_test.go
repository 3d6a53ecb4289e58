package patterns

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzLearnPython reads Python source, as patterns learn and the history
// read every file of every sglang release: whatever the bytes, the reader
// returns sites or an error naming a line, never panics, and every site it
// returns lies inside the file, with a message regex that compiles.
func FuzzLearnPython(f *testing.F) {
	seeds := []string{
		"def f(x):\n    if x:\n        raise ValueError(f\"bad {x}\")\n    else:\n        logger.warning(\"ok %s\", x)\n",
		"class ServerArgs:\n    tp_size: A[int, Arg(aliases=[\"--tp\"])] = 1\n    mode: A[Literal[\"a\", \"b\"], \"help\"] = \"a\"\n",
		"parser.add_argument(\"--x\", type=int, choices=CHOICES, action=\"store_true\")\nCHOICES = [\"a\"]\n",
		"raise HTTPException(status_code=400, detail=\"Widget \" + str(n) + \" is missing\")\n",
		"x = '''unterminated\n",
		"assert x, (\n    'a' 'b'\n    f'{y!r:>10}'\n)\n",
		"if a: raise RuntimeError('one line')\nelif b:\n  pass\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		sites, err := ParsePython("f.py", []byte(src))
		if err == nil {
			for _, s := range sites {
				if s.Line < 1 || s.Line > lines || s.EndLine < s.Line || s.EndLine > lines {
					t.Fatalf("site %+v outside lines 1-%d", s, lines)
				}
				if _, err := regexp.Compile(s.Regex); err != nil {
					t.Fatalf("site %+v: regex: %v", s, err)
				}
			}
		}
		flags, err := LearnFlags("f.py", []byte(src))
		if err == nil {
			for _, fl := range flags {
				if len(fl.Names) == 0 || fl.Line < 1 || fl.Line > lines {
					t.Fatalf("flag %+v", fl)
				}
			}
		}
	})
}
