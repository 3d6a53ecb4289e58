// Package patterns holds tailfix's knowledge: one record per known error,
// saying how to recognise it and what to do about it.
//
// Records are data. The built-in pack is embedded from the YAML files beside
// this package (one file per family, such as sglang/pd-disagg.yaml); users add
// their own with LoadDir, which also reads records in the seed JSON schema
// (schemaVersion 2). Every record is validated on load, and a bad one is
// reported with its file, id and field.
//
// The matcher package compiles a Pack into its automaton; the remedies package
// turns a matched record into advice. This package imports nothing of tailfix.
package patterns

import (
	"fmt"
	"regexp"
	"strings"
)

// Severity rates how bad an error is.
type Severity uint8

// Severities, from least to most severe. The zero value is "unset".
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityError
	SeverityFatal
)

var severityNames = [...]string{"", "info", "warning", "error", "fatal"}

// Severities lists the valid severity names, least severe first.
func Severities() []string { return append([]string(nil), severityNames[1:]...) }

// ParseSeverity parses a severity name: info, warning, error or fatal.
func ParseSeverity(s string) (Severity, error) {
	for i, name := range severityNames[1:] {
		if s == name {
			return Severity(i + 1), nil
		}
	}
	return 0, fmt.Errorf("invalid severity %q (valid: %s)", s, strings.Join(Severities(), ", "))
}

func (s Severity) String() string {
	if int(s) < len(severityNames) && s != 0 {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", uint8(s))
}

// MarshalText implements encoding.TextMarshaler.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Role says how a record's error relates to others in the same log.
type Role uint8

const (
	// RoleCause is an error in its own right: the default.
	RoleCause Role = iota
	// RoleSymptom follows from an earlier error (a child died, the parent
	// received SIGQUIT). It is linked to the cause reported before it.
	RoleSymptom
	// RoleWrapper wraps another error's message ("Transfer thread failed
	// because of …"). In the same event, a cause found by another record wins.
	RoleWrapper
)

var roleNames = [...]string{"cause", "symptom", "wrapper"}

func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}

// MarshalText implements encoding.TextMarshaler.
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *Role) UnmarshalText(b []byte) error {
	for i, name := range roleNames {
		if string(b) == name {
			*r = Role(i)
			return nil
		}
	}
	return fmt.Errorf("invalid role %q (valid: %s)", b, strings.Join(roleNames[:], ", "))
}

// Record is one known error.
//
// A record of a user's pack file in the usual layout is slim (Slim) once
// loaded: its Title, Cause, Where, Fix and Tests are empty until Load reads
// them again from the file. Pack.Lookup, and the matcher for the records
// of the occurrences it reports, load them.
type Record struct {
	ID       string   `yaml:"id" json:"id"`
	Title    string   `yaml:"title" json:"title"`
	Severity Severity `yaml:"severity" json:"severity"`
	Role     Role     `yaml:"role" json:"role"`
	Match    Match    `yaml:"match" json:"match"`
	Where    *Site    `yaml:"where" json:"where,omitempty"`
	Cause    string   `yaml:"cause" json:"cause"`
	Fix      Fix      `yaml:"fix" json:"fix"`
	Related  []string `yaml:"related" json:"related,omitempty"`
	// Follows names records whose error makes this one's line appear
	// (the decode side's "failed to get kvcache" after the prefill side's
	// failed transfer): with one of them in the same report, this finding
	// follows from it.
	Follows []string `yaml:"follows" json:"follows,omitempty"`
	Tags    []string `yaml:"tags" json:"tags,omitempty"`
	Tests   Tests    `yaml:"tests" json:"tests"`

	// Origin names the file the record was loaded from.
	Origin string `yaml:"-" json:"origin"`
	// Line is the line of Origin the record starts on; 0 when unknown.
	Line int `yaml:"-" json:"-"`
	// Gen is set for a record generated from sglang's source rather than
	// written by hand.
	// A pack patterns learn writes carries it too: learned records are
	// generated from source, and rank and read as the built-in ones.
	Gen *Generated `yaml:"generated,omitempty" json:"generated,omitempty"`

	// needles are the prefilter literals Validate worked out from Match,
	// kept so that the matcher does not parse the same expressions again.
	needles *checkedMatch
	// user is set for a record loaded from a user's pack (Load, LoadDir),
	// not built in.
	user bool
	// rest is set for a slim record: where its title, cause, fix and
	// tests are read again from (see Load).
	rest *rest
}

// checkedMatch is what Validate worked out from a Match: its prefilter
// needles. The expressions themselves are compiled only by those who run
// them, the matcher when a line first proposes the record.
type checkedMatch struct {
	of      Match
	needles []string
}

// User reports whether the record was loaded from a user's pack (Load,
// LoadDir) rather than built into the binary.
func (r *Record) User() bool { return r.user }

// Compiled returns the record's regex and frame expressions compiled (nil
// for those it does not have).
func (r *Record) Compiled() (re, frame *regexp.Regexp, err error) {
	if r.Match.Regex != "" {
		if re, err = regexp.Compile(r.Match.Regex); err != nil {
			return nil, nil, err
		}
	}
	if r.Match.Frame != "" {
		if frame, err = regexp.Compile(r.Match.Frame); err != nil {
			return nil, nil, err
		}
	}
	return re, frame, nil
}

// TagBenign marks a record of a line known to be harmless, such as an
// optional import that falls back: a line it matches is explained, and
// is no finding.
const TagBenign = "benign"

// TagFallback marks a generic record of a family whose specific records
// say more (any missing Python module, against the missing vllm or
// sgl_kernel): on a line another hand-written record also explains, that
// one is the finding.
const TagFallback = "fallback"

// TagDownstream marks a record of a line printed where requests are
// answered, such as a router finding no healthy worker or an HTTP 500
// response: it follows from the servers' own failure, and yields to any
// error of theirs in the same report.
const TagDownstream = "downstream"

// TagShutdown marks a record of a stop that was asked for (SIGTERM, Ctrl-C):
// children ending and the SIGQUIT after it, with no error of their own
// between, are the shutdown, not a failure.
const TagShutdown = "shutdown"

// TagIsolate marks a record of a family whose cause lies in whichever part
// of sglang the traceback came through (a call between two of its modules
// that no longer agree): its fix gains the step that runs the server once
// without that part, named by the traceback's innermost frame in sglang.
const TagIsolate = "isolate"

// TagRaisedHere marks a record found by a frame (Match.Frame) that holds
// only when that frame is the traceback's innermost: the exception was
// raised there, not passed up through it from a library it called.
const TagRaisedHere = "raised-here"

// Benign reports whether the record describes a harmless line.
func (r *Record) Benign() bool { return r.HasTag(TagBenign) }

// HasTag reports whether the record carries a tag.
func (r *Record) HasTag(tag string) bool {
	for _, t := range r.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// Generated is what a generated record knows besides its match: how the
// message is raised, how often, and the flags it names.
type Generated struct {
	// Kind is raise, assert, logger.error, logger.warning or
	// logger.critical.
	Kind string `yaml:"kind" json:"kind"`
	// Template is the message as written in the source, placeholders
	// included.
	Template string `yaml:"template" json:"template"`
	// Qualname is the raising function with its classes.
	Qualname string `yaml:"qualname,omitempty" json:"qualname,omitempty"`
	// Sites counts the places in the source that raise the message.
	Sites int `yaml:"sites" json:"sites"`
	// Flags are the launch flags the message names.
	Flags []string `yaml:"flags,omitempty" json:"flags,omitempty"`
	// Guard is the condition under which the source raises it, as written.
	Guard string `yaml:"guard,omitempty" json:"guard,omitempty"`
	// Commit is the sglang commit the site was read from.
	Commit string `yaml:"commit,omitempty" json:"commit,omitempty"`
	// Source is the file on this machine the site was read from, for a
	// record patterns learn read from a tree here.
	Source string `yaml:"source,omitempty" json:"source,omitempty"`
	// FirstRelease and LastRelease are the first and last sglang release
	// that print the message ("0.4.4.post2"; "main 2026-05" for main as
	// sampled after the last release the history knows); LastRelease is
	// empty while the newest commit read still prints it. RemovedIn is the
	// release that no longer does, and RemovedBy the commit that dropped
	// it ("ec6f8d61f [Spec] Async-assert probes…").
	FirstRelease string `yaml:"first_release,omitempty" json:"first_release,omitempty"`
	LastRelease  string `yaml:"last_release,omitempty" json:"last_release,omitempty"`
	RemovedIn    string `yaml:"removed_in,omitempty" json:"removed_in,omitempty"`
	RemovedBy    string `yaml:"removed_by,omitempty" json:"removed_by,omitempty"`
	// Needles are the record's prefilter literals, worked out when the
	// pack was generated.
	Needles []string `yaml:"-" json:"-"`
}

// Match says how to recognise a record's error in one normalized log line
// (header, ANSI escapes and CR removed). Exactly one of Message and Regex is set.
type Match struct {
	// Exception is the Python exception class usually seen with the error.
	Exception string `yaml:"exception" json:"exception,omitempty"`
	// Message is a literal, case-sensitive substring of the line.
	Message string `yaml:"message" json:"message,omitempty"`
	// Regex is an unanchored RE2 expression; its named groups are captures.
	// With Frame, it is matched against the exception's message instead.
	Regex string `yaml:"regex" json:"regex,omitempty"`
	// Frame is an unanchored RE2 expression for a frame line of a
	// traceback (`File "…/conn.py", line 675, in _handle_route_get`): for an
	// error whose message is Python's own and says little, where it is
	// raised says what it is. The traceback's exception must then be of
	// class Exception, and match Regex when there is one.
	Frame string `yaml:"frame" json:"frame,omitempty"`
	// Next is an unanchored RE2 expression for a line that goes on with
	// the error when it is logged just after it, as a record of its own
	// (sglang's diffusion server logs "Exit code: -9" on the line after
	// "Rank 0 scheduler is dead."): the line joins the error's event.
	Next string `yaml:"next" json:"next,omitempty"`
}

// Site is where an error is raised in its project's source.
type Site struct {
	Repo     string `yaml:"repo" json:"repo"`
	File     string `yaml:"file" json:"file"`
	Line     int    `yaml:"line" json:"line,omitempty"`
	Function string `yaml:"function" json:"function,omitempty"`
}

// Fix is what to do: steps, and an example command-line fragment before and
// after the change.
type Fix struct {
	Steps  []string `yaml:"steps" json:"steps"`
	Before string   `yaml:"before" json:"before,omitempty"`
	After  string   `yaml:"after" json:"after,omitempty"`
	// Otherwise is the change to show when the log's own figures rule out
	// Before and After (a worked value they name would not help), as a
	// weights-loading OOM rules out a lower --mem-fraction-static and asks
	// for more GPUs instead.
	Otherwise *Change `yaml:"otherwise" json:"otherwise,omitempty"`
}

// Change is a command-line fragment before and after a change.
type Change struct {
	Before string `yaml:"before" json:"before"`
	After  string `yaml:"after" json:"after"`
}

// Tests are the record's own examples: log lines it must match and near
// misses it must not.
type Tests struct {
	Match   []string `yaml:"match" json:"match"`
	NoMatch []string `yaml:"no_match" json:"no_match"`
}
