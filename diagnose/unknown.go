package diagnose

import (
	"io"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

// Unknown diagnoses the input r, named name, as scan does and returns its
// findings at error level that no record knows: tracebacks, and lines
// whose words say something failed that no record explains. On a healthy
// server's log there must be none (tailfix patterns lint --healthy).
func Unknown(m *matcher.Matcher, r io.Reader, name string) ([]*Finding, error) {
	sess := New(m, Options{})
	if err := sess.Add(name, SourceOptions{}).Scan(r); err != nil {
		return nil, err
	}
	var out []*Finding
	for _, f := range sess.Findings() {
		if f.Record == nil && f.Severity >= patterns.SeverityError {
			out = append(out, f)
		}
	}
	return out, nil
}
