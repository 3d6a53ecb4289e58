package patterns

import (
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		want string // "" for no problem
	}{
		{"a message", Record{Match: Match{Message: "CUDA out of memory"}}, ""},
		{"a regex with a literal", Record{Match: Match{Regex: `Tried to allocate (\d+)`}}, ""},
		{"a regex that does not compile", Record{Match: Match{Regex: `(unclosed`}}, "x.yaml: t/r: regex does not compile: error parsing regexp: missing closing ): `(unclosed`"},
		{"a regex without a literal", Record{Match: Match{Regex: `\d+ \w+`}}, "x.yaml: t/r: no required literal to prefilter on: every match must contain a literal of at least 4 bytes"},
		{"a generated record with a needle", Record{Gen: &Generated{Needles: []string{"is not supported"}}}, ""},
		{"a generated record without needles", Record{Gen: &Generated{}}, "x.yaml: t/r: no literal of 4 bytes to prefilter on"},
		{"a generated record with a short needle", Record{Gen: &Generated{Needles: []string{"bad"}}}, "x.yaml: t/r: no literal of 4 bytes to prefilter on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rec
			r.ID, r.Origin = "t/r", "x.yaml"
			p, err := index([]*Record{&r}, true)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, pr := range p.Lint() {
				got = append(got, pr.String())
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("problems %q, want none", got)
			case tt.want != "" && (len(got) != 1 || got[0] != tt.want):
				t.Errorf("problems %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLintBuiltin guards the built-in pack: it lints clean.
func TestLintBuiltin(t *testing.T) {
	p, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if ps := p.Lint(); len(ps) > 0 {
		var s []string
		for _, pr := range ps {
			s = append(s, pr.String())
		}
		t.Errorf("%d problems:\n%s", len(ps), strings.Join(s, "\n"))
	}
	if n := p.Generated(); n == 0 || n >= len(p.Records) {
		t.Errorf("%d of %d records generated", n, len(p.Records))
	}
}
