package patterns

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tailfix/tailfix/internal/regular"
)

// FlagSite is one launch flag found in Python source: an argparse
// add_argument call, or a field of sglang's declarative ServerArgs
// (`tp_size: A[int, Arg(aliases=["--tp"]), NS("parallel")] = 1`, whose flag
// is the field's name with dashes).
type FlagSite struct {
	// Names are the flag's spellings, the first the usual one.
	Names []string `json:"names"`
	// Dest is the ServerArgs field the flag sets, when the source names it.
	Dest string `json:"dest,omitempty"`
	// Choices are the values the flag accepts, when the source lists them
	// as literals (or as a module constant of literals); nil otherwise.
	Choices []string `json:"choices,omitempty"`
	// Action is argparse's action as written ("store_true"), or empty.
	Action string `json:"action,omitempty"`
	// Type is the type the value is read as ("int", "float", a parser's
	// name), empty for a string or none; Nargs argparse's nargs as
	// written; Default the default as JSON when it is a literal; Help the
	// help text when it is a literal.
	Type    string `json:"type,omitempty"`
	Nargs   string `json:"nargs,omitempty"`
	Default string `json:"default,omitempty"`
	Help    string `json:"help,omitempty"`
	// Deprecated is set when the action or help says so.
	Deprecated bool   `json:"deprecated,omitempty"`
	File       string `json:"file"`
	Line       int    `json:"line"`

	noCLI bool // a declarative field with no command-line flag
}

// Switch reports whether the flag takes no value on the command line.
func (f *FlagSite) Switch() bool {
	switch f.Action {
	case "store_true", "store_false", "store_const", "count", "BooleanOptionalAction":
		return true
	}
	for _, kind := range []string{"StoreTrue", "StoreFalse", "StoreConst"} {
		if strings.Contains(f.Action, kind) {
			return true // sglang's Deprecated…Action wrappers of those
		}
	}
	// sglang's DeprecatedAction takes no value (nargs=0): the flag is
	// accepted, with a warning, and ignored.
	return f.Action == "DeprecatedAction"
}

// LearnFlags returns the launch flags one Python file defines, in source
// order. name is the file's path in the sites and in errors.
func LearnFlags(name string, src []byte) ([]FlagSite, error) {
	toks, err := pyTokenize(strings.TrimPrefix(string(src), "\uFEFF"))
	if err != nil {
		return nil, err
	}
	var lines [][]pyToken
	for i := 0; i < len(toks); {
		j := i
		for j < len(toks) && toks[j].kind != pyNewline {
			j++
		}
		if j > i {
			lines = append(lines, toks[i:j])
		}
		i = j + 1
	}
	// Module constants of literal strings, for choices=SOME_CHOICES.
	consts := map[string][]string{}
	for _, l := range lines {
		if l[0].indent == 0 && len(l) > 2 && l[0].kind == pyName && l[1].is(pyOp, "=") {
			if vs, ok := literalList(l[2:], consts); ok {
				consts[l[0].text] = vs
			}
		}
	}
	var out []FlagSite
	classIndent := -1 // the indentation of the body of class ServerArgs, while in it
	for _, l := range lines {
		if ind := l[0].indent; ind >= 0 {
			if classIndent >= 0 && ind < classIndent {
				classIndent = -1
			}
			if len(l) > 1 && l[0].is(pyName, "class") && l[1].is(pyName, "ServerArgs") {
				classIndent = ind + 1
			}
		}
		if classIndent >= 0 && l[0].indent >= classIndent {
			if fs, ok := annotatedField(l, consts); ok {
				if !fs.noCLI {
					fs.File, fs.Line = name, l[0].line
					out = append(out, fs)
				}
				continue
			}
		}
		for k := 0; k+1 < len(l); k++ {
			if l[k].is(pyName, "add_argument") && l[k+1].is(pyOp, "(") && k > 0 && l[k-1].is(pyOp, ".") {
				end := pyClosing(l, k+1)
				if fs, ok := addArgument(l[k+2:min(end, len(l))], consts); ok {
					fs.File, fs.Line = name, l[k].line
					out = append(out, fs)
				}
				k = end
			}
		}
	}
	return out, nil
}

// addArgument reads the arguments of an add_argument call.
func addArgument(args []pyToken, consts map[string][]string) (FlagSite, bool) {
	var fs FlagSite
	for _, a := range pySplitTop(args, ",") {
		if len(a) == 0 {
			continue
		}
		if len(a) >= 2 && a[0].kind == pyName && a[1].is(pyOp, "=") {
			kwarg(&fs, a[0].text, a[2:], consts)
			continue
		}
		if s, ok := literalString(a); ok && strings.HasPrefix(s, "-") {
			fs.Names = append(fs.Names, s)
		}
	}
	if len(fs.Names) == 0 {
		return fs, false
	}
	// argparse's usual spelling is the first long one.
	for i, n := range fs.Names {
		if strings.HasPrefix(n, "--") {
			fs.Names[0], fs.Names[i] = fs.Names[i], fs.Names[0]
			break
		}
	}
	if fs.Dest == "" {
		fs.Dest = strings.ReplaceAll(strings.TrimLeft(fs.Names[0], "-"), "-", "_")
	}
	return fs, true
}

// kwarg reads one keyword argument of add_argument or Arg.
func kwarg(fs *FlagSite, key string, val []pyToken, consts map[string][]string) {
	switch key {
	case "dest":
		if s, ok := literalString(val); ok {
			fs.Dest = s
		}
	case "choices":
		if vs, ok := literalList(val, consts); ok {
			fs.Choices = vs
		}
	case "action":
		if s, ok := literalString(val); ok {
			fs.Action = s
		} else if len(val) > 0 {
			fs.Action = val[len(val)-1].text // a class: DeprecatedAction
		}
		fs.Deprecated = fs.Deprecated || strings.Contains(fs.Action, "Deprecated")
		if fs.Action == "BooleanOptionalAction" && len(fs.Names) > 0 && strings.HasPrefix(fs.Names[0], "--") {
			// argparse adds the negation: --no-x.
			fs.Names = append(fs.Names, "--no-"+fs.Names[0][2:])
		}
	case "aliases":
		if vs, ok := literalList(val, consts); ok {
			fs.Names = append(fs.Names, vs...)
		}
	case "cli_name":
		if s, ok := literalString(val); ok && len(fs.Names) > 0 {
			fs.Names[0] = s
		}
	case "no_cli":
		fs.noCLI = len(val) == 1 && val[0].is(pyName, "True")
	case "deprecated":
		fs.Deprecated = len(val) == 1 && val[0].is(pyName, "True")
	case "help":
		if s, ok := literalString(val); ok {
			fs.Help = s
			l := strings.ToLower(strings.TrimSpace(s))
			fs.Deprecated = fs.Deprecated || strings.HasPrefix(l, "deprecated") || strings.HasPrefix(l, "(deprecated")
		}
	case "type", "type_parser":
		if len(val) > 0 && val[len(val)-1].kind == pyName {
			fs.Type = val[len(val)-1].text
			if key == "type_parser" {
				fs.Nargs = "" // the parser reads the one value given
			}
		}
	case "nargs":
		if s, ok := literalString(val); ok {
			fs.Nargs = s
		} else if len(val) == 1 && val[0].kind == pyNumber {
			fs.Nargs = val[0].text
		}
	case "default":
		if j, ok := literalJSON(val); ok {
			fs.Default = j
		}
	case "action_kwargs":
		// {"type": str, "nargs": "*"}: what a custom action passes on.
		if len(val) >= 2 && val[0].is(pyOp, "{") && pyClosing(val, 0) == len(val)-1 {
			for _, item := range pySplitTop(val[1:len(val)-1], ",") {
				kv := pySplitTop(item, ":")
				if len(kv) != 2 {
					continue
				}
				if k, ok := literalString(kv[0]); ok && (k == "type" || k == "nargs") {
					kwarg(fs, k, kv[1], consts)
				}
			}
		}
	}
}

// annotatedField reads a field of the declarative ServerArgs:
// `name: A[type, help or Arg(...), …] = default`.
func annotatedField(l []pyToken, consts map[string][]string) (FlagSite, bool) {
	if len(l) < 5 || l[0].kind != pyName || !l[1].is(pyOp, ":") || !(l[2].is(pyName, "A") || l[2].is(pyName, "Annotated")) || !l[3].is(pyOp, "[") {
		return FlagSite{}, false
	}
	end := pyClosing(l, 3)
	parts := pySplitTop(l[4:min(end, len(l))], ",")
	fs := FlagSite{Dest: l[0].text, Names: []string{"--" + strings.ReplaceAll(l[0].text, "_", "-")}}
	if end+1 < len(l) && l[end+1].is(pyOp, "=") {
		if j, ok := literalJSON(l[end+2:]); ok {
			fs.Default = j
		}
	}
	if len(parts) > 0 {
		fs.Type, fs.Nargs, fs.Action = annotationType(parts[0])
	}
	if len(parts) > 0 {
		typ := parts[0]
		// Literal["a", "b"], perhaps inside Optional[…].
		for k := 0; k+1 < len(typ); k++ {
			if typ[k].is(pyName, "Literal") && typ[k+1].is(pyOp, "[") {
				e := pyClosing(typ, k+1)
				if vs, ok := literalList(typ[k+1:min(e+1, len(typ))], consts); ok {
					fs.Choices = vs
				}
				break
			}
		}
	}
	for _, p := range parts[min(1, len(parts)):] {
		if _, ok := literalString(p); ok {
			kwarg(&fs, "help", p, consts) // the help, and whether it says deprecated
			continue
		}
		if len(p) >= 3 && p[0].is(pyName, "Arg") && p[1].is(pyOp, "(") {
			e := pyClosing(p, 1)
			for _, a := range pySplitTop(p[2:min(e, len(p))], ",") {
				if len(a) >= 2 && a[0].kind == pyName && a[1].is(pyOp, "=") {
					kwarg(&fs, a[0].text, a[2:], consts)
				}
			}
		}
	}
	return fs, true
}

// annotationType reads a declarative field's type: the type a value is
// read as, whether the flag takes a list (nargs "+"), and store_true for a
// bool. Optional[X] is X; a Union with str is str; Literal[…] is str, or
// int for numbers.
func annotationType(typ []pyToken) (string, string, string) {
	nargs := ""
	for {
		switch {
		case len(typ) > 3 && typ[0].is(pyName, "Optional") && typ[1].is(pyOp, "[") && pyClosing(typ, 1) == len(typ)-1:
			typ = typ[2 : len(typ)-1]
			continue
		case len(typ) > 3 && (typ[0].is(pyName, "List") || typ[0].is(pyName, "list")) && typ[1].is(pyOp, "[") && pyClosing(typ, 1) == len(typ)-1:
			typ = typ[2 : len(typ)-1]
			nargs = "+"
			continue
		}
		break
	}
	switch {
	case len(typ) == 1 && typ[0].is(pyName, "bool"):
		return "", "", "store_true"
	case len(typ) == 1 && (typ[0].is(pyName, "int") || typ[0].is(pyName, "float") || typ[0].is(pyName, "str")):
		return typ[0].text, nargs, ""
	case len(typ) > 2 && typ[0].is(pyName, "Literal"):
		if typ[2].kind == pyNumber {
			return "int", nargs, ""
		}
		return "str", nargs, ""
	case len(typ) > 2 && typ[0].is(pyName, "Union"):
		for _, t := range typ[2:] {
			if t.is(pyName, "str") {
				return "str", "", ""
			}
		}
	}
	return "", nargs, ""
}

// literalJSON returns a Python literal (a number, a string, True, False,
// None, or a list of those) as JSON.
func literalJSON(toks []pyToken) (string, bool) {
	switch {
	case len(toks) == 1 && toks[0].kind == pyNumber:
		return strings.ReplaceAll(toks[0].text, "_", ""), true
	case len(toks) == 2 && toks[0].is(pyOp, "-") && toks[1].kind == pyNumber:
		return "-" + strings.ReplaceAll(toks[1].text, "_", ""), true
	case len(toks) == 1 && toks[0].is(pyName, "True"):
		return "true", true
	case len(toks) == 1 && toks[0].is(pyName, "False"):
		return "false", true
	case len(toks) == 1 && toks[0].is(pyName, "None"):
		return "null", true
	}
	if s, ok := literalString(toks); ok {
		b, _ := json.Marshal(s)
		return string(b), true
	}
	if len(toks) >= 2 && toks[0].is(pyOp, "[") && pyClosing(toks, 0) == len(toks)-1 {
		var items []string
		for _, item := range pySplitTop(toks[1:len(toks)-1], ",") {
			if len(item) == 0 {
				continue
			}
			j, ok := literalJSON(item)
			if !ok {
				return "", false
			}
			items = append(items, j)
		}
		return "[" + strings.Join(items, ", ") + "]", true
	}
	return "", false
}

// literalString returns the value of an expression that is one plain
// string literal, or implicitly concatenated ones.
func literalString(toks []pyToken) (string, bool) {
	for len(toks) > 2 && toks[0].is(pyOp, "(") && pyClosing(toks, 0) == len(toks)-1 {
		toks = toks[1 : len(toks)-1] // ("a" "b")
	}
	if len(toks) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, t := range toks {
		if t.kind != pyString || t.fstr {
			return "", false
		}
		for _, p := range t.parts {
			if p.ph {
				return "", false
			}
			b.WriteString(p.lit)
		}
	}
	return b.String(), true
}

// literalList returns the strings of a list, tuple or set of string
// literals (or a module constant of one).
func literalList(toks []pyToken, consts map[string][]string) ([]string, bool) {
	if len(toks) == 1 && toks[0].kind == pyName {
		vs, ok := consts[toks[0].text]
		return vs, ok
	}
	if len(toks) < 2 || !toks[0].is(pyOp, "[") && !toks[0].is(pyOp, "(") && !toks[0].is(pyOp, "{") {
		return nil, false
	}
	if pyClosing(toks, 0) != len(toks)-1 {
		return nil, false
	}
	var out []string
	for _, item := range pySplitTop(toks[1:len(toks)-1], ",") {
		if len(item) == 0 {
			continue
		}
		s, ok := literalString(item)
		if !ok && len(item) == 1 && item[0].kind == pyNumber {
			s, ok = item[0].text, true
		}
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, len(out) > 0
}

// FirstSentence is a flag's help cut after its first sentence, as a flag
// table shows it.
func FirstSentence(help string) string {
	help = strings.TrimSpace(help)
	for i := 0; i+1 < len(help); i++ {
		if help[i] == '.' && help[i+1] == ' ' {
			return help[:i+1]
		}
	}
	return help
}

// FlagFile reports whether a file of the sglang package (its path inside
// python/sglang) defines launch flags: the ServerArgs module and, since
// the declarative layout, its groups.
func FlagFile(rel string) bool {
	return rel == "srt/server_args.py" || strings.HasPrefix(rel, "srt/arg_groups/") && strings.HasSuffix(rel, ".py")
}

// ErrNoFlagFiles is returned by LearnFlagTable for a tree that holds no
// srt/server_args.py: not an sglang package.
var ErrNoFlagFiles = errors.New("no srt/server_args.py: not the sglang package directory")

// LearnFlagTable reads the launch flags of an installed sglang package
// (fsys is its directory, the one holding srt/server_args.py) and returns
// its flag table, of release. It is how check judges a command for a
// release newer than the embedded tables know. A file the reader cannot
// read is an error naming it: a table missing its flags would call them
// unrecognized.
func LearnFlagTable(fsys fs.FS, release string) (*FlagTable, error) {
	var names []string
	if _, err := fs.Stat(fsys, "srt/server_args.py"); err != nil {
		return nil, ErrNoFlagFiles
	}
	names = append(names, "srt/server_args.py")
	groups, _ := fs.Glob(fsys, "srt/arg_groups/*.py")
	names = append(names, groups...)
	t := &FlagTable{Release: release, byName: map[string]*Flag{}}
	for _, name := range names {
		src, err := regular.ReadFS(fsys, name, maxSourceBytes)
		if err != nil {
			return nil, err
		}
		sites, err := LearnFlags(name, src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i := range sites {
			if t.byName[sites[i].Names[0]] == nil {
				t.add(sites[i].flag())
			}
		}
	}
	if len(t.Flags) == 0 {
		return nil, fmt.Errorf("srt/server_args.py: no launch flags found")
	}
	return t, nil
}

// flag is the table's entry for a flag found in the source, as the
// generator writes the newest release's.
func (f *FlagSite) flag() *Flag {
	fl := &Flag{Names: f.Names, Dest: f.Dest, Type: f.Type, Default: f.Default, Choices: f.Choices,
		Deprecated: f.Deprecated, DefinedAt: fmt.Sprintf("python/sglang/%s:%d", f.File, f.Line),
		Help: FirstSentence(f.Help), Action: cmp.Or(f.Action, "store"), Nargs: f.Nargs}
	// A default as the generator writes it: JSON of the value, none for None.
	var def any
	if json.Unmarshal([]byte(f.Default), &def) == nil {
		fl.Default = ""
		if def != nil {
			b, _ := json.Marshal(def)
			fl.Default = string(b)
		}
	}
	if fl.Nargs == "" && f.Switch() {
		fl.Nargs = "0" // as argparse records a flag that takes no value
	}
	return fl
}
