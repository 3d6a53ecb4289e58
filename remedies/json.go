package remedies

import (
	"encoding/json"
	"io"

	"github.com/tailfix/tailfix/diagnose"
)

// jsonFinding is the finding contract: one JSON object per line. Field names
// are stable; add fields, never rename.
type jsonFinding struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	Severity  string  `json:"severity"`
	Exception *string `json:"exception"`
	Message   string  `json:"message"`
	Source    string  `json:"source"`
	Line      int64   `json:"line"`
	EndLine   int64   `json:"end_line"`
	Count     int     `json:"count"`
	// Occurrences locates each occurrence merged into the finding, the
	// earliest 64, in line order.
	Occurrences []jsonSpan        `json:"occurrences"`
	Ranks       []string          `json:"ranks"`
	FirstSeen   *string           `json:"first_seen"`
	LastSeen    *string           `json:"last_seen"`
	RootCause   bool              `json:"root_cause"`
	SymptomOf   *string           `json:"symptom_of"`
	Remedy      Remedy            `json:"remedy"`
	Site        *jsonSite         `json:"site"`
	Captures    map[string]string `json:"captures,omitempty"`
	// Partial marks a traceback cut before its exception line.
	Partial bool `json:"partial,omitempty"`
	// Provisional marks a live view of an event still open; Withdrawn
	// takes such a view back (see the README's live modes).
	Provisional bool `json:"provisional,omitempty"`
	Withdrawn   bool `json:"withdrawn,omitempty"`
	// Final marks the live modes' closing record of a finding: what scan
	// says of it, counts and all.
	Final bool `json:"final,omitempty"`
	// Folded, on the summary of a family of unrecognised errors past what
	// an input keeps, estimates how many distinct messages it holds.
	Folded int `json:"folded,omitempty"`
}

type jsonSpan struct {
	Line    int64 `json:"line"`
	EndLine int64 `json:"end_line"`
}

type jsonSite struct {
	Repo     string `json:"repo"`
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Function string `json:"function,omitempty"`
	// The sglang releases that print a generated record's message.
	FirstRelease string `json:"first_release,omitempty"`
	LastRelease  string `json:"last_release,omitempty"`
	RemovedIn    string `json:"removed_in,omitempty"`
	RemovedBy    string `json:"removed_by,omitempty"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toJSON(f *diagnose.Finding) jsonFinding {
	j := jsonFinding{
		ID: f.ID, Title: f.Title, Severity: f.Severity.String(),
		Exception: nullable(f.Exception), Message: f.Message,
		Source: f.Source, Line: f.Line, EndLine: f.EndLine,
		Count: f.Count, Ranks: f.Ranks,
		FirstSeen: nullable(f.FirstSeen), LastSeen: nullable(f.LastSeen),
		RootCause: f.RootCause, SymptomOf: nullable(f.SymptomOf),
		Remedy: For(f), Captures: f.Captures, Partial: f.Partial, Provisional: f.Provisional,
		Folded: f.Folded,
	}
	if j.Ranks == nil {
		j.Ranks = []string{}
	}
	j.Occurrences = make([]jsonSpan, 0, max(1, len(f.Spans)))
	for _, s := range f.Spans {
		j.Occurrences = append(j.Occurrences, jsonSpan{s.Line, s.EndLine})
	}
	if len(j.Occurrences) == 0 {
		j.Occurrences = append(j.Occurrences, jsonSpan{f.Line, f.EndLine})
	}
	if r := f.Record; r != nil && r.Where != nil {
		j.Site = &jsonSite{Repo: r.Where.Repo, File: r.Where.File, Line: r.Where.Line, Function: r.Where.Function}
		if g := r.Gen; g != nil {
			j.Site.FirstRelease, j.Site.LastRelease, j.Site.RemovedIn, j.Site.RemovedBy = g.FirstRelease, g.LastRelease, g.RemovedIn, g.RemovedBy
		}
	}
	return j
}

// writeJSON writes one finding as a line of JSON.
func writeJSON(w io.Writer, f *diagnose.Finding) error {
	return encodeJSON(w, toJSON(f))
}

func encodeJSON(w io.Writer, j jsonFinding) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(j)
}
