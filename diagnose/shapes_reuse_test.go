package diagnose

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/matcher"
)

// What a record confirmed on one line is reused for the later lines of
// the same shape (numbers, ids and addresses masked): the diagnosis must
// be the one every line confirmed by its regexp gives. Each fixture is
// diagnosed alone, then three times over with its numbers and ids
// changed in the second and third copies (same shapes, other words), and
// all of them one after another as one input; the findings must agree in
// every field a report shows.
func TestShapeReuseKeepsDiagnosis(t *testing.T) {
	m := builtinMatcher(t)
	var paths []string
	for _, glob := range []string{"../testdata/logs/*.log", "../../shared/logs/dev/*.log"} {
		ps, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	if len(paths) == 0 {
		t.Fatal("no fixture logs")
	}
	var all []byte
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(data); n > 0 && data[n-1] != '\n' {
			data = append(data, '\n')
		}
		all = append(all, data...)
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			sameDiagnosis(t, m, string(data))
			sameDiagnosis(t, m, string(data)+renumber(data, 1)+renumber(data, 7))
		})
	}
	t.Run("all", func(t *testing.T) {
		sameDiagnosis(t, m, string(all)+renumber(all, 3))
	})
}

// sameDiagnosis diagnoses log with and without reusing what confirmed on
// a shape, and compares the findings.
func sameDiagnosis(t *testing.T, m *matcher.Matcher, log string) {
	t.Helper()
	diagnose := func(opt Options) string {
		s := New(m, opt)
		if err := s.Add("in.log", SourceOptions{}).Scan(strings.NewReader(log)); err != nil {
			t.Fatal(err)
		}
		return listAll(s.Findings())
	}
	got, want := diagnose(Options{}), diagnose(Options{confirmEveryLine: true})
	if got != want {
		t.Errorf("reusing shapes changes the diagnosis:\n--- reused\n%s--- every line confirmed\n%s", got, want)
	}
}

// listAll renders every field of findings that a report shows or that
// tells two findings apart.
func listAll(fs []*Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %q %s %s lines %d-%d spans=%v ×%d ranks=%v seen=%q..%q root=%v symptom_of=%q partial=%v folded=%d\n",
			f.ID, f.Title, f.Severity, f.Source, f.Line, f.EndLine, f.Spans, f.Count, f.Ranks, f.FirstSeen, f.LastSeen,
			f.RootCause, f.SymptomOf, f.Partial, f.Folded)
		fmt.Fprintf(&b, "    %s: %s\n    frame %q own %q\n", f.Exception, f.Message, f.Frame, f.OwnFrame)
		for _, k := range slices.Sorted(maps.Keys(f.Captures)) {
			fmt.Fprintf(&b, "    %s=%q\n", k, f.Captures[k])
		}
	}
	return b.String()
}

// renumber changes every digit of log by adding k, and every letter a-f
// of a run of hexadecimal digits eight long or more (an id) by k too: the
// same shapes as log, with other numbers and ids.
func renumber(log []byte, k int) string {
	out := bytes.Clone(log)
	isHex := func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
	for i := 0; i < len(out); i++ {
		j := i
		for j < len(out) && isHex(out[j]) {
			j++
		}
		hexRun := j-i >= 8
		for ; i < j; i++ {
			switch c := out[i]; {
			case '0' <= c && c <= '9':
				out[i] = '0' + byte((int(c-'0')+k)%10)
			case hexRun:
				out[i] = 'a' + byte((int(c-'a')+k)%6)
			}
		}
	}
	return string(out)
}
