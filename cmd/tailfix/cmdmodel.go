package main

import (
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// The command line as kong models it, walked by the completion scripts and
// the man page, so that a command or flag added to cli appears in both
// without being listed again.

// subcommands returns n's commands that help shows, in their order.
func subcommands(n *kong.Node) []*kong.Node {
	var out []*kong.Node
	for _, c := range n.Children {
		if c.Type == kong.CommandNode && !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// walkCommands calls fn for n and every command under it that help shows,
// a command before those under it.
func walkCommands(n *kong.Node, fn func(*kong.Node)) {
	fn(n)
	for _, c := range subcommands(n) {
		walkCommands(c, fn)
	}
}

// commandPath is n's command names below the application: "" for the
// application itself, "patterns list" for a command under another.
func commandPath(n *kong.Node) string {
	var names []string
	for ; n != nil && n.Type == kong.CommandNode; n = n.Parent {
		names = append(names, n.Name)
	}
	slices.Reverse(names)
	return strings.Join(names, " ")
}

// ownFlags returns the flags of n itself that help shows.
func ownFlags(n *kong.Node) []*kong.Flag {
	var out []*kong.Flag
	for _, f := range n.Flags {
		if !f.Hidden {
			out = append(out, f)
		}
	}
	return out
}

// acceptedFlags returns the flags a command accepts that help shows: its
// own and those of the commands above it, the application's first.
func acceptedFlags(n *kong.Node) []*kong.Flag {
	var out []*kong.Flag
	if n.Parent != nil {
		out = acceptedFlags(n.Parent)
	}
	return append(out, ownFlags(n)...)
}

// flagSpellings returns every way f is written on the command line: the
// long name, its aliases, the short name and the negation.
func flagSpellings(f *kong.Flag) []string {
	out := []string{"--" + f.Name}
	for _, a := range f.Aliases {
		out = append(out, "--"+a)
	}
	if f.Short != 0 {
		out = append(out, "-"+string(f.Short))
	}
	switch f.Tag.Negatable {
	case "":
	case "_": // kong's mark for the default negation
		out = append(out, "--no-"+f.Name)
	default:
		out = append(out, "--"+f.Tag.Negatable)
	}
	return out
}

// takesValue reports whether f is followed by a value.
func takesValue(f *kong.Flag) bool { return !f.IsBool() && !f.IsCounter() }

// flagPlaceholder is the word help shows for f's value (FILE, DIR…).
func flagPlaceholder(f *kong.Flag) string {
	if f.PlaceHolder != "" {
		return f.PlaceHolder
	}
	return strings.ToUpper(f.Name)
}

// argName is the word help shows for a positional argument.
func argName(a *kong.Positional) string {
	if a.Tag != nil && a.Tag.PlaceHolder != "" {
		return a.Tag.PlaceHolder
	}
	return a.Name
}

// passthrough reports whether a takes the rest of the command line as it
// is (run -- CMD, check -- CMD).
func passthrough(a *kong.Positional) bool {
	return a.PassthroughMode != kong.PassThroughModeNone || a.Passthrough
}

// valueKind is what a completion offers for a flag's value or an argument.
type valueKind int

const (
	valueAny  valueKind = iota // nothing to offer: a number, a name, text
	valueEnum                  // one of its choices
	valueFile                  // a file name
	valueDir                   // a directory name
)

// kindOf tells what v is from its choices, or else from the word help
// shows for it: a DIR is a directory; a FILE, LOG, PATH or MANIFEST a file.
func kindOf(v *kong.Value, word string) valueKind {
	if v.Enum != "" {
		return valueEnum
	}
	w := strings.ToUpper(word)
	switch {
	case strings.Contains(w, "DIR"):
		return valueDir
	case strings.Contains(w, "FILE"), strings.Contains(w, "LOG"), strings.Contains(w, "PATH"), strings.Contains(w, "MANIFEST"):
		return valueFile
	}
	return valueAny
}

// firstSentence is the first sentence of a help text, without its full
// stop: a completion's one-line description.
func firstSentence(help string) string {
	help = strings.Join(strings.Fields(help), " ")
	if i := strings.Index(help, ". "); i >= 0 {
		help = help[:i]
	}
	return strings.TrimSuffix(help, ".")
}
