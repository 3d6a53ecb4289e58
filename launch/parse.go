package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/patterns"
)

// ErrNotLaunch is returned by Parse when the words are not an sglang launch
// command.
var ErrNotLaunch = errors.New("not an sglang launch command")

// Command is a parsed launch command: the environment assignments before
// it, how it starts sglang, and its flags.
type Command struct {
	// Source names the command in findings: "command line", "prefill
	// command" or "decode command".
	Source string
	// Env holds the NAME=value assignments written before the command.
	Env map[string]string
	// EnvOrder lists Env's names in the order written.
	EnvOrder []string
	// Prefix is how the command starts sglang, e.g. "python -m
	// sglang.launch_server" or "sglang serve".
	Prefix string
	// Wrapper is what runs the command when it is not run directly: "docker
	// run --gpus all lmsysorg/sglang:latest", "srun -N 2", "bash -c".
	Wrapper string
	// Args are the flags in the order written, unknown ones included.
	Args []*Arg

	table  *patterns.FlagTable
	last   map[string]*Arg // the last known argument of each dest
	issues []Issue         // what parsing found
}

// Arg is one flag of a command with its values.
type Arg struct {
	// Flag is sglang's flag, or nil for an unknown one.
	Flag *patterns.Flag
	// Name is the flag as written, without "=value": "--tp", "--tp_size".
	Name string
	// Values are the values given: none for a switch, one for most flags,
	// any number for nargs '*' and '+'.
	Values []string
	// Eq is true when the value was written as --flag=value.
	Eq bool
}

// Value is the argument's value: its first, or "" for a switch.
func (a *Arg) Value() string {
	if len(a.Values) == 0 {
		return ""
	}
	return a.Values[0]
}

// Text is the argument as a command-line fragment, in the user's spelling.
func (a *Arg) Text() string {
	return render(a.Name, a.Values, a.Eq)
}

func render(name string, values []string, eq bool) string {
	if len(values) == 0 {
		return name
	}
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = Quote(v)
	}
	if eq && len(values) == 1 {
		return name + "=" + q[0]
	}
	return name + " " + strings.Join(q, " ")
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// Parse parses the words of a launch command with sglang's flag table.
// Problems with the flags (unknown ones, bad values, repeats) are kept in
// the command for Check; Parse fails only when the words do not start
// sglang at all.
func Parse(words []string, source string, table *patterns.FlagTable) (*Command, error) {
	c := &Command{Source: source, Env: map[string]string{}, table: table, last: map[string]*Arg{}}
	i := c.lead(words)
	rest, prefix, err := launchPrefix(words[i:])
	if err != nil {
		var ok bool
		if rest, prefix, ok = c.unwrap(words[i:]); !ok {
			return nil, err
		}
	}
	c.Prefix = prefix
	c.parseArgs(rest)
	return c, nil
}

var pythonRE = regexp.MustCompile(`^python[0-9.]*$`)

// containerRE names the programs whose -e/--env NAME=VALUE options set the
// environment of the command they run.
var containerRE = regexp.MustCompile(`^(?:docker|podman|nerdctl|apptainer|singularity)$`)

// unwrap finds the launch command inside a command that runs it — a
// container (docker run … IMAGE python -m sglang.launch_server …), a job
// launcher (srun, uv run, conda run), a shell (bash -c '…') — and returns
// what launchPrefix returns for it. The environment the wrapper gives it
// (a container's -e NAME=VALUE, NAME=VALUE words just before it) goes to
// c.Env.
func (c *Command) unwrap(words []string) (rest []string, prefix string, ok bool) {
	for j := 1; j < len(words); j++ {
		w := words[j]
		if words[j-1] == "-c" && strings.Contains(w, "sglang") {
			inner, err := Split(w)
			if err != nil {
				return nil, "", false
			}
			c.wrapped(words[:j], nil)
			inner = inner[c.lead(inner):]
			if rest, prefix, err := launchPrefix(inner); err == nil {
				return rest, prefix, true
			}
			return c.unwrap(inner)
		}
		if !launcher(w) {
			continue
		}
		rest, prefix, err := launchPrefix(words[j:])
		if err != nil {
			continue
		}
		k := j
		for k > 1 && envNameRE.MatchString(words[k-1]) {
			k--
		}
		c.wrapped(words[:k], words[k:j])
		return rest, prefix, true
	}
	return nil, "", false
}

// launcher reports whether a word may start sglang: a Python interpreter,
// the sglang script or launch_server.py.
func launcher(w string) bool {
	b := path.Base(w)
	return pythonRE.MatchString(b) || b == "sglang" || strings.HasSuffix(b, "launch_server.py")
}

// lead takes the environment assignments and the plain wrappers (env,
// nohup, exec, time) that start words into c.Env, and returns how many
// words they are.
func (c *Command) lead(words []string) int {
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case envNameRE.MatchString(w):
			name, value, _ := strings.Cut(w, "=")
			c.setEnv(name, value)
		case w == "env" || w == "nohup" || w == "exec" || w == "time":
		default:
			return i
		}
	}
	return i
}

// wrapped keeps the wrapper's words and the environment they set.
func (c *Command) wrapped(wrapper, assigns []string) {
	c.Wrapper = strings.TrimSuffix(strings.Join(wrapper, " "), " env")
	if containerRE.MatchString(path.Base(wrapper[0])) {
		for k := 1; k < len(wrapper); k++ {
			w := wrapper[k]
			var kv string
			switch {
			case (w == "-e" || w == "--env") && k+1 < len(wrapper):
				k++
				kv = wrapper[k]
			case strings.HasPrefix(w, "--env="):
				kv = w[len("--env="):]
			case strings.HasPrefix(w, "-e") && envNameRE.MatchString(w[2:]):
				kv = w[2:]
			}
			if envNameRE.MatchString(kv) {
				name, value, _ := strings.Cut(kv, "=")
				c.setEnv(name, value)
			}
		}
	}
	for _, kv := range assigns {
		name, value, _ := strings.Cut(kv, "=")
		c.setEnv(name, value)
	}
}

// setEnv sets one variable of the command's environment.
func (c *Command) setEnv(name, value string) {
	if _, seen := c.Env[name]; !seen {
		c.EnvOrder = append(c.EnvOrder, name)
	}
	c.Env[name] = value
}

// launchPrefix recognises how the words start sglang and returns the words
// after it.
func launchPrefix(words []string) (rest []string, prefix string, err error) {
	if len(words) == 0 {
		return nil, "", fmt.Errorf("%w: no command", ErrNotLaunch)
	}
	w0 := path.Base(words[0])
	switch {
	case strings.HasPrefix(words[0], "-"):
		return words, "", nil // the flags alone
	case w0 == "sglang":
		if len(words) > 1 && words[1] == "serve" {
			return words[2:], strings.Join(words[:2], " "), nil
		}
		return nil, "", fmt.Errorf("%w: %q is not followed by serve", ErrNotLaunch, words[0])
	case strings.HasSuffix(w0, "launch_server.py"):
		return words[1:], words[0], nil
	case pythonRE.MatchString(w0):
		i := 1
		for i < len(words) && strings.HasPrefix(words[i], "-") && words[i] != "-m" {
			switch words[i] {
			case "-X", "-W":
				i += 2
			default:
				i++
			}
		}
		switch {
		case i+1 < len(words) && words[i] == "-m":
			if words[i+1] != "sglang.launch_server" {
				return nil, "", fmt.Errorf("%w: python -m %s is not sglang.launch_server", ErrNotLaunch, words[i+1])
			}
			return words[i+2:], strings.Join(words[:i+2], " "), nil
		case i < len(words) && strings.HasSuffix(words[i], "launch_server.py"):
			return words[i+1:], strings.Join(words[:i+1], " "), nil
		}
		return nil, "", fmt.Errorf("%w: %s does not run sglang.launch_server", ErrNotLaunch, words[0])
	}
	return nil, "", fmt.Errorf("%w: %q is not python -m sglang.launch_server, sglang serve or launch_server.py", ErrNotLaunch, words[0])
}

// negativeRE is what argparse takes for a negative number.
var negativeRE = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

// isOption says whether argparse takes a word for an option rather than a
// value: it starts with '-', is not a negative number and has no space.
func isOption(w string) bool {
	return len(w) >= 2 && w[0] == '-' && !negativeRE.MatchString(w) && !strings.Contains(w, " ")
}

func (c *Command) parseArgs(words []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			// Everything after is positional; sglang takes none.
			for _, stray := range words[i+1:] {
				c.stray(stray)
			}
			return
		}
		if !isOption(w) {
			c.stray(w)
			continue
		}
		if w == "-h" || w == "--help" {
			continue
		}
		name, value, eq := strings.Cut(w, "=")
		fl, candidates := c.lookup(name)
		if len(candidates) > 1 {
			c.ambiguous(name, candidates)
			if !eq && i+1 < len(words) && !isOption(words[i+1]) {
				i++
			}
			continue
		}
		if fl == nil {
			a := &Arg{Name: name, Eq: eq}
			s := c.suggest(name)
			switch {
			case eq:
				a.Values = []string{value}
			case i+1 < len(words) && !isOption(words[i+1]) && (s == nil || s.TakesValue()):
				i++
				a.Values = []string{words[i]}
			}
			c.Args = append(c.Args, a)
			c.unknown(a, s)
			continue
		}
		a := &Arg{Flag: fl, Name: name, Eq: eq}
		i = c.takeValues(a, words, i, value, eq)
		c.Args = append(c.Args, a)
		c.validate(a)
		if prev := c.last[fl.Dest]; prev != nil {
			c.repeated(prev, a)
		}
		c.last[fl.Dest] = a
		if fl.Deprecated {
			c.deprecated(a)
		}
	}
}

// takeValues consumes the values of a known flag at words[i] and returns
// the index of its last word.
func (c *Command) takeValues(a *Arg, words []string, i int, value string, eq bool) int {
	fl := a.Flag
	if !fl.TakesValue() {
		if eq {
			c.add(Issue{ID: idInvalidValue, Message: fmt.Sprintf("argument %s: ignored explicit argument %s: %s takes no value",
				names(fl), pyRepr(value), a.Name),
				Before: a.Name + "=" + Quote(value), After: a.Name})
		}
		return i
	}
	if eq {
		a.Values = []string{value}
		return i
	}
	next := func() bool { return i+1 < len(words) && !isOption(words[i+1]) }
	switch fl.Nargs {
	case "*", "+":
		for next() {
			i++
			a.Values = append(a.Values, words[i])
		}
		if fl.Nargs == "+" && len(a.Values) == 0 {
			c.missing(a, "expected at least one argument")
		}
	case "?":
		if next() {
			i++
			a.Values = []string{words[i]}
		}
	default:
		n := 1
		if k, err := strconv.Atoi(fl.Nargs); err == nil && k > 0 {
			n = k
		}
		for len(a.Values) < n && next() {
			i++
			a.Values = append(a.Values, words[i])
		}
		if len(a.Values) < n {
			if n == 1 {
				c.missing(a, "expected one argument")
			} else {
				c.missing(a, fmt.Sprintf("expected %d arguments", n))
			}
		}
	}
	return i
}

// lookup finds a flag by exact name, or by an unambiguous prefix as
// argparse allows (--tp for --tp-size). More than one candidate means the
// prefix is ambiguous.
func (c *Command) lookup(name string) (*patterns.Flag, []string) {
	if !strings.HasPrefix(name, "-") {
		return nil, nil
	}
	if fl := c.table.Lookup(name); fl != nil && slices.Contains(fl.Names, name) {
		return fl, nil
	}
	if !strings.HasPrefix(name, "--") || len(name) < 3 {
		return nil, nil
	}
	var found *patterns.Flag
	var candidates []string
	for _, fl := range c.table.Flags {
		for _, n := range fl.Names {
			if strings.HasPrefix(n, name) {
				candidates = append(candidates, n)
				found = fl
			}
		}
	}
	switch len(candidates) {
	case 0:
		return nil, nil
	case 1:
		return found, nil
	}
	return nil, candidates
}

// pyRepr writes a string the way Python's repr does in argparse errors.
func pyRepr(s string) string {
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// names is a flag's spellings joined as argparse prints them.
func names(fl *patterns.Flag) string {
	return strings.Join(fl.Names, "/")
}

func (c *Command) add(is Issue) {
	is.Side = c.Source
	c.issues = append(c.issues, is)
}

func (c *Command) stray(w string) {
	c.add(Issue{ID: idUnrecognized,
		Message: fmt.Sprintf("unrecognized argument %s: sglang takes no positional arguments; a value that the shell split, "+
			"or one given to a flag that takes none, ends up here", Quote(w)),
		Before: Quote(w)})
}

func (c *Command) ambiguous(name string, candidates []string) {
	shown := candidates
	if len(shown) > 6 {
		shown = append(slices.Clone(shown[:6]), "…")
	}
	c.add(Issue{ID: idAmbiguous,
		Message: fmt.Sprintf("ambiguous option: %s could match %s", name, strings.Join(shown, ", ")),
		Before:  name, After: candidates[0]})
}

func (c *Command) unknown(a *Arg, s *patterns.Flag) {
	is := Issue{ID: idUnrecognized, Before: a.Text()}
	if h := c.table.History; h != nil && s == nil {
		// The table of the user's own release: a flag of other releases
		// is not one of this.
		if span, lacks := c.table.Lacks(a.Name); lacks {
			is.Message = fmt.Sprintf("unrecognized argument %s: sglang %s does not have it (a flag of %s)", a.Name, c.table.Release, span)
			c.add(is)
			return
		}
		is.Message = fmt.Sprintf("unrecognized argument %s: not a flag of sglang %s, nor of any release tailfix knows", a.Name, c.table.Release)
		c.add(is)
		return
	}
	if src := c.table.Source; src != "" && s == nil {
		// The table was read from the user's own sglang: it is the whole
		// truth about it.
		is.Message = fmt.Sprintf("unrecognized argument %s: the installed sglang %s has no such flag (read from its source, %s)", a.Name, c.table.Release, src)
		if c.table.Release == "" {
			is.Message = fmt.Sprintf("unrecognized argument %s: the sglang source at %s has no such flag", a.Name, src)
		}
		c.add(is)
		return
	}
	if s == nil {
		// Nothing close: no typo, but perhaps a flag of a newer release
		// than the table's. That stops only an sglang that lacks it.
		is.Message = fmt.Sprintf("unrecognized argument %s: not a flag of sglang's launch_server", a.Name)
		if rel := c.table.Release; rel != "" {
			is.Message += fmt.Sprintf(" as of %s; an sglang newer than that may have it, an older one stops here", rel)
		}
		is.Severity = patterns.SeverityWarning
		c.add(is)
		return
	}
	is.Message = fmt.Sprintf("unrecognized argument %s: did you mean %s?", a.Name, s.Names[0])
	is.After = render(s.Names[0], a.Values, a.Eq)
	is.Captures = map[string]string{"flag": a.Name, "suggestion": s.Names[0]}
	c.newer(&is)
	c.add(is)
}

// newer makes a problem that the user's sglang, newer than every release
// the table knows, may not have a warning that says so.
func (c *Command) newer(is *Issue) {
	if v := c.table.Newer; v != "" {
		is.Severity = patterns.SeverityWarning
		is.Message += fmt.Sprintf(" (sglang %s is newer than the releases tailfix knows, up to %s: it may accept this)", v, c.table.Release)
	}
}

func (c *Command) missing(a *Arg, what string) {
	c.add(Issue{ID: idInvalidValue,
		Message: fmt.Sprintf("argument %s: %s", names(a.Flag), what),
		Before:  a.Name, After: a.Name + " " + placeholder(a.Flag)})
}

// placeholder is a metavar-like stand-in for a flag's value.
func placeholder(fl *patterns.Flag) string {
	return strings.ToUpper(fl.Dest)
}

func (c *Command) repeated(prev, a *Arg) {
	if prev.Text() == a.Text() {
		c.add(Issue{ID: idRepeated,
			Message: fmt.Sprintf("%s is given twice with the same value; sglang uses the last one", a.Name),
			Before:  prev.Text() + " " + a.Text(), After: a.Text()})
		return
	}
	c.add(Issue{ID: idRepeated,
		Message: fmt.Sprintf("%s is given twice (%s, then %s); sglang silently uses the last one, %s",
			a.Flag.Names[0], prev.Text(), a.Text(), a.Text()),
		Before: prev.Text() + " " + a.Text(), After: a.Text()})
}

func (c *Command) deprecated(a *Arg) {
	help := strings.TrimSpace(a.Flag.Help)
	is := Issue{ID: idDeprecated, Before: a.Text()}
	repl := patterns.Replacement(help, append([]string{a.Name}, a.Flag.Names...))
	switch {
	case strings.HasPrefix(help, "Removed"):
		is.Message = fmt.Sprintf("%s is deprecated and has been removed: it no longer has any effect", a.Name)
	case repl != "":
		is.Message = fmt.Sprintf("%s is deprecated; use %s instead", a.Name, repl)
		name, value, eq := strings.Cut(repl, "=")
		switch {
		case eq:
			is.After = name + " " + value
		case a.Flag.TakesValue():
			is.After = render(name, a.Values, false)
		default:
			is.After = name
		}
	default:
		is.Message = fmt.Sprintf("%s is deprecated; sglang names no replacement", a.Name)
	}
	c.add(is)
}

// validate checks an argument's values against the flag's type and
// choices, as argparse would.
func (c *Command) validate(a *Arg) {
	fl := a.Flag
	for _, v := range a.Values {
		if jsonStr[fl.Dest] {
			if ok, _ := typeOK("loads", v); !ok {
				c.add(Issue{ID: idInvalidValue,
					Message: fmt.Sprintf("argument %s: %s is not JSON; sglang accepts it, then fails with a JSONDecodeError when it loads the model config",
						names(fl), pyRepr(v)),
					Before: a.Text(), After: render(a.Name, []string{`{"key": "value"}`}, a.Eq)})
				return
			}
		}
		if ok, what := typeOK(fl.Type, v); !ok {
			c.add(Issue{ID: idInvalidValue,
				Message: fmt.Sprintf("argument %s: invalid %s value: %s", names(fl), what, pyRepr(v)),
				Before:  a.Text(), After: render(a.Name, []string{placeholder(fl)}, a.Eq)})
			return
		}
		if len(fl.Choices) == 0 || choiceOK(fl, v) {
			continue
		}
		is := Issue{ID: idInvalidChoice,
			Message: fmt.Sprintf("argument %s: invalid choice: %s (choose from %s)", names(fl), pyRepr(v), strings.Join(fl.Choices, ", ")),
			Before:  a.Text()}
		s := choiceAliases[fl.Dest][strings.ToLower(v)]
		if s == "" {
			s = closest(strings.ToLower(v), fl.Choices, maxDistance(v))
		}
		if s != "" {
			is.Message += fmt.Sprintf("; did you mean %s?", s)
			is.After = render(a.Name, []string{s}, a.Eq)
		} else {
			is.After = render(a.Name, []string{placeholder(fl)}, a.Eq)
		}
		c.newer(&is)
		c.add(is)
		return
	}
}

// choiceAliases are values people write for a choice by another name.
var choiceAliases = map[string]map[string]string{
	"attention_backend":         attentionAliases,
	"prefill_attention_backend": attentionAliases,
	"decode_attention_backend":  attentionAliases,
}

var attentionAliases = map[string]string{
	"flash_attn": "fa3", "flash-attn": "fa3", "flashattn": "fa3", "flash_attention": "fa3", "flashattention": "fa3",
	"flashattention3": "fa3", "flash_attn3": "fa3", "fa_3": "fa3", "flashattention4": "fa4", "flash_attn4": "fa4",
	"flash_infer": "flashinfer", "flash-infer": "flashinfer", "torch": "torch_native", "sdpa": "torch_native",
}

// jsonStr are the string flags sglang reads as JSON after parsing.
var jsonStr = map[string]bool{"json_model_override_args": true}

// newerChoices are values that sglang releases newer than the flag table
// accept; they are not reported as invalid.
var newerChoices = map[string][]string{
	"attention_backend":         {"minicpm_flashattn", "minicpm_flashinfer"},
	"prefill_attention_backend": {"minicpm_flashattn", "minicpm_flashinfer"},
	"decode_attention_backend":  {"minicpm_flashattn", "minicpm_flashinfer"},
}

func choiceOK(fl *patterns.Flag, v string) bool {
	if fl.Type == "int" {
		if n, err := parseInt(v); err == nil {
			v = strconv.Itoa(n)
		}
	}
	return slices.Contains(fl.Choices, v) || slices.Contains(newerChoices[fl.Dest], v)
}

var (
	pyIntRE      = regexp.MustCompile(`^[+-]?[0-9](?:_?[0-9])*$`)
	humanIntRE   = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)?(?:Ki|Mi|Gi|Ti|k|M|G|T)$`)
	pyFloatWords = []string{"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan", "-nan"}
)

// parseInt parses an integer the way Python's int() does.
func parseInt(v string) (int, error) {
	s := strings.TrimSpace(v)
	if !pyIntRE.MatchString(s) {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(strings.ReplaceAll(strings.TrimPrefix(s, "+"), "_", ""))
}

// typeOK checks a value against an argparse type, and names the type for
// argparse's message.
func typeOK(typ, v string) (bool, string) {
	s := strings.TrimSpace(v)
	switch typ {
	case "int":
		_, err := parseInt(s)
		return err == nil, "int"
	case "float":
		if slices.Contains(pyFloatWords, strings.ToLower(s)) {
			return true, "float"
		}
		_, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		return err == nil && !strings.HasPrefix(strings.ToLower(s), "0x"), "float"
	case "human_readable_int":
		_, err := parseInt(s)
		return err == nil || humanIntRE.MatchString(s), "human_readable_int"
	case "loads", "json_list_type":
		var x any
		if err := json.Unmarshal([]byte(s), &x); err != nil {
			return false, typ
		}
		if typ == "json_list_type" {
			_, ok := x.([]any)
			return ok, typ
		}
		return true, typ
	}
	return true, typ
}

// imageRE is an sglang image with its release in the tag:
// lmsysorg/sglang:v0.4.6.post1-cu124 gives 0.4.6.post1.
var imageRE = regexp.MustCompile(`^(?:[\w.:-]+/)*[\w.-]*sglang[\w.-]*(?::v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)\b[\w.-]*|:[\w.-]+)?(?:@sha256:[0-9a-f]+)?$`)

// ImageRelease says whether words run the command in a container, whose
// own Python is the one that runs it rather than this machine's, and the
// release an sglang image's tag names ("" for latest, nightly, a digest or
// another image).
func ImageRelease(words []string) (release string, inImage bool) {
	if len(words) == 0 || !containerRE.MatchString(path.Base(words[0])) {
		return "", false
	}
	for _, w := range words[1:] {
		if launcher(w) {
			break // the command itself starts here
		}
		if m := imageRE.FindStringSubmatch(w); m != nil && !strings.HasPrefix(w, "-") {
			return m[1], true
		}
	}
	return "", true
}
