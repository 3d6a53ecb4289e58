package patterns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// seedRecord is the part of the seed JSON schema (schemaVersion 2) that
// tailfix uses. Other fields are ignored.
type seedRecord struct {
	ID               string   `json:"id"`
	Repo             string   `json:"repo"`
	Slug             string   `json:"slug"`
	ErrorMessage     string   `json:"errorMessage"`
	MessagePattern   string   `json:"messagePattern"`
	ErrorClass       string   `json:"errorClass"`
	Severity         string   `json:"severity"`
	FilePath         string   `json:"filePath"`
	LineNumber       int      `json:"lineNumber"`
	Documentation    string   `json:"documentation"`
	TriggerScenarios string   `json:"triggerScenarios"`
	Solutions        []string `json:"solutions"`
	ExampleFix       string   `json:"exampleFix"`
	PreventionTips   []string `json:"preventionTips"`
	Tags             []string `json:"tags"`
	SchemaVersion    int      `json:"schemaVersion"`
}

// ParseSeed parses records in the seed JSON schema: one record, a
// {"record": …} envelope, or an array of either. name is used in errors and
// Origin.
func ParseSeed(name string, data []byte) ([]*Record, error) {
	data = bytes.TrimSpace(data)
	var raws []json.RawMessage
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	} else {
		raws = []json.RawMessage{data}
	}
	recs := make([]*Record, 0, len(raws))
	for i, raw := range raws {
		var env struct {
			Record *seedRecord `json:"record"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", name, i+1, err)
		}
		s := env.Record
		if s == nil {
			s = new(seedRecord)
			if err := json.Unmarshal(raw, s); err != nil {
				return nil, fmt.Errorf("%s: record %d: %w", name, i+1, err)
			}
		}
		r, err := s.toRecord(name)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

var slugRE = regexp.MustCompile(`[^a-z0-9._-]+`)

func (s *seedRecord) toRecord(origin string) (*Record, error) {
	id := s.Slug
	if id == "" {
		id = s.ID
	}
	fail := func(field string, err error) error {
		return &RecordError{File: origin, ID: id, Field: field, Err: err}
	}
	if s.SchemaVersion != 2 {
		return nil, fail("schemaVersion", fmt.Errorf("is %d; tailfix reads schema version 2", s.SchemaVersion))
	}
	if id == "" {
		return nil, fail("slug", errors.New("missing (and no id)"))
	}
	if s.ErrorMessage == "" && s.MessagePattern == "" {
		return nil, fail("errorMessage", errors.New("missing (and no messagePattern)"))
	}
	family := "imported"
	if s.Repo != "" {
		family = path.Base(s.Repo)
	}
	r := &Record{
		ID:     slugRE.ReplaceAllString(strings.ToLower(family), "-") + "/" + slugRE.ReplaceAllString(strings.ToLower(id), "-"),
		Title:  firstLine(s.ErrorMessage),
		Cause:  strings.TrimSpace(s.Documentation + " " + s.TriggerScenarios),
		Tags:   s.Tags,
		Origin: origin,
	}
	if r.Title == "" {
		r.Title = s.MessagePattern
	}
	sev := s.Severity
	switch sev {
	case "", "critical":
		sev = map[string]string{"": "error", "critical": "fatal"}[sev]
	}
	v, err := ParseSeverity(sev)
	if err != nil {
		return nil, fail("severity", err)
	}
	r.Severity = v
	r.Match.Exception = s.ErrorClass
	// messagePattern is a regular expression in the schema, but most records
	// hold plain message text there. Text that is its own message, or that
	// does not compile, is matched literally.
	switch {
	case s.MessagePattern == "" || s.MessagePattern == s.ErrorMessage:
		r.Match.Message = firstLine(s.ErrorMessage)
	default:
		if _, err := regexp.Compile(s.MessagePattern); err == nil {
			r.Match.Regex = s.MessagePattern
		} else {
			r.Match.Message = s.MessagePattern
		}
	}
	if s.ErrorMessage != "" {
		r.Tests.Match = []string{firstLine(s.ErrorMessage)}
		if s.ErrorClass != "" {
			r.Tests.Match = append(r.Tests.Match, s.ErrorClass+": "+firstLine(s.ErrorMessage))
		}
	}
	if s.FilePath != "" {
		r.Where = &Site{Repo: s.Repo, File: s.FilePath, Line: s.LineNumber}
	}
	r.Fix.Steps = append(append([]string(nil), s.Solutions...), s.PreventionTips...)
	r.Fix.Before, r.Fix.After = splitExampleFix(s.ExampleFix)
	return r, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// splitExampleFix splits "# before\n…\n# after\n…" into its two halves,
// keeping only lines that are not comments.
func splitExampleFix(s string) (before, after string) {
	var cur *[]string
	var b, a []string
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		switch strings.ToLower(t) {
		case "# before", "# before:":
			cur = &b
			continue
		case "# after", "# after:":
			cur = &a
			continue
		}
		if cur == nil || t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		*cur = append(*cur, t)
	}
	return strings.Join(b, " "), strings.Join(a, " ")
}
