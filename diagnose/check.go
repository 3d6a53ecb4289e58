package diagnose

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

// FromIssues turns the issues package launch found in a launch command
// into findings, most severe first, for tailfix check. Each finding's
// record is the pattern of the error its issue predicts, looked up in
// pack, as a copy whose before/after are the user's own flags, so that
// every output format shows them; they are also in the captures "before"
// and "after". A finding of a launch command has no line: Line and
// EndLine are 0, and Source is the command at fault. An issue whose
// record is not in pack is an error.
func FromIssues(pack *patterns.Pack, issues []launch.Issue) ([]*Finding, error) {
	findings := make([]*Finding, 0, len(issues))
	for _, is := range issues {
		rec := pack.Lookup(is.ID)
		if rec == nil {
			return nil, fmt.Errorf("no pattern record %q", is.ID)
		}
		r := *rec
		if is.Before != "" || is.After != "" {
			r.Fix.Before, r.Fix.After = is.Before, is.After
		}
		caps := maps.Clone(is.Captures)
		if caps == nil {
			caps = map[string]string{}
		}
		caps["before"], caps["after"] = is.Before, is.After
		findings = append(findings, &Finding{
			ID: r.ID, Title: r.Title, Severity: cmp.Or(is.Severity, r.Severity), Record: &r,
			Message: is.Message, Captures: caps, Source: is.Side, Line: 0, EndLine: 0, Count: 1, RootCause: true,
		})
	}
	slices.SortStableFunc(findings, func(a, b *Finding) int { return cmp.Compare(b.Severity, a.Severity) })
	return findings, nil
}
