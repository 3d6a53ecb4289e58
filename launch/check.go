// Package launch checks an sglang launch command before it runs.
//
// Parse reads the command (`python -m sglang.launch_server …`, `sglang
// serve …`, `launch_server.py …`, with environment assignments before it)
// with sglang's own flag table from package patterns, the way argparse
// would: aliases, unambiguous prefixes, `--flag=value`, switches and nargs
// lists. Check reports what argparse would reject (unknown flags, with a
// did-you-mean; invalid choices; bad values), what it would silently
// accept but is likely a mistake (a flag given twice, a deprecated flag),
// and, through its rules, the errors sglang would raise later for the
// combination of flags and model: while resolving its arguments, while
// starting, or on the first request. CheckPair does the same for a
// prefill and a decode command and compares the two. ParseText and
// ParseWords take a command as the user gives it (one shell-quoted
// string, or words); ParseWrapped reads the command line of a process
// that may be a server or a wrapper script passing sglang's flags on;
// HubCache says where a repo id's config.json may already be.
//
// PDAgreements is the one list of the settings prefill and decode servers
// must agree on, with how to read each from anything that answers Lookup:
// a parsed Command here, the configuration a server logs in package
// matcher, which compares the servers of a log pair with it.
//
// Every Issue names the pattern record of the error it predicts, so that
// cmd/tailfix (check, through diagnose.FromIssues) can show that record's
// remedy; run reads the server's configuration from its command line here
// until the server logs its own. The package imports only patterns and
// pyrepr; it prints nothing and reads no environment (HubCache is given
// a lookup function, Check the cache directory).
package launch

import (
	"slices"

	"github.com/tailfix/tailfix/patterns"
)

// Issue is one problem in a launch command.
type Issue struct {
	// ID is the pattern record of the error the problem leads to.
	ID string
	// Severity overrides the record's when it is not zero: a problem that
	// fails only on some sglang releases is a warning.
	Severity patterns.Severity
	// Side is the Source of the command at fault; for a problem between a
	// prefill and a decode command, "prefill and decode commands".
	Side string
	// Message says what in the command leads to the error.
	Message string
	// Before and After are the user's flags and the changed ones.
	Before, After string
	// Captures are values for the record's remedy: the flags involved.
	Captures map[string]string
}

// Pattern ids the checks report.
const (
	idUnrecognized  = "sglang/unrecognized-arguments"
	idAmbiguous     = "sglang/ambiguous-option"
	idInvalidChoice = "sglang/invalid-choice"
	idInvalidValue  = "sglang/invalid-flag-value"
	idRepeated      = "sglang/flag-repeated"
	idDeprecated    = "sglang/deprecated-flag"
	idRequired      = "sglang/required-argument-missing"
)

// PairSide is the Side of a problem between a prefill and a decode command.
const PairSide = "prefill and decode commands"

// Options configure a check.
type Options struct {
	// HFCache is the Hugging Face hub cache directory, where the
	// config.json of a model given by repo id may be found; "" for none.
	HFCache string
}

// Check checks one command: what parsing found, then every rule.
func Check(c *Command, opt Options) []Issue {
	issues := slices.Clone(c.issues)
	if !c.Given("model_path") && !c.Given("config") {
		issues = append(issues, Issue{ID: idRequired, Side: c.Source,
			Message: "the following arguments are required: --model-path/--model",
			After:   "--model-path MODEL_PATH"})
	}
	m := c.model(opt)
	for _, r := range rules {
		issues = append(issues, r.check(&env{c: c, m: m})...)
	}
	return issues
}

// CheckPair checks a prefill and a decode command on their own and
// against each other.
func CheckPair(prefill, decode *Command, opt Options) []Issue {
	var issues []Issue
	if prefill != nil {
		issues = append(issues, Check(prefill, opt)...)
	}
	if decode != nil {
		issues = append(issues, Check(decode, opt)...)
	}
	if prefill != nil && decode != nil {
		p := &env{c: prefill, m: prefill.model(opt)}
		d := &env{c: decode, m: decode.model(opt)}
		for _, r := range pairRules {
			issues = append(issues, r.check(p, d)...)
		}
	}
	return issues
}

func (c *Command) model(opt Options) *Model {
	if !c.Given("model_path") {
		return &Model{}
	}
	return DetectModel(c.Str("model_path"), opt.HFCache)
}

// IDs lists every pattern id a check can report, for tests that the pack
// holds them all.
func IDs() []string {
	ids := []string{idUnrecognized, idAmbiguous, idInvalidChoice, idInvalidValue, idRepeated, idDeprecated, idRequired}
	for _, r := range rules {
		ids = append(ids, r.id)
	}
	for _, r := range pairRules {
		ids = append(ids, r.id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Judge returns what parsing finds in arguments that sglang's argparse
// rejected, as a log shows them ("error: unrecognized arguments: --tp-szie
// 2"): the issues with the user's own flags before and after. No rule is
// applied, and a missing --model-path is not reported.
func Judge(args []string, table *patterns.FlagTable) []Issue {
	c, err := Parse(append([]string{"sglang", "serve"}, args...), "log", table)
	if err != nil {
		return nil
	}
	return slices.Clone(c.issues)
}
