package launch

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Given reports whether the command sets the flag of a dest.
func (c *Command) Given(dest string) bool { return c.last[dest] != nil }

// Arg returns the last argument that sets a dest, or nil.
func (c *Command) Arg(dest string) *Arg { return c.last[dest] }

// Str is the value of a dest as given, or sglang's default ("" for None).
func (c *Command) Str(dest string) string {
	if a := c.last[dest]; a != nil {
		switch {
		case a.Flag.TakesValue():
			return strings.Join(a.Values, " ")
		case strings.HasPrefix(a.Name, "--no-") || strings.Contains(a.Flag.Action, "store_false") ||
			strings.Contains(a.Flag.Action, "StoreFalse"):
			return "false"
		}
		return "true"
	}
	fl := c.table.Lookup(dest)
	if fl == nil || fl.Default == "" || fl.Default == "null" {
		return ""
	}
	var s string
	if json.Unmarshal([]byte(fl.Default), &s) == nil {
		return s
	}
	return fl.Default
}

// Int is the value of an integer dest, given or default; ok is false when
// it has none or it is not a number.
func (c *Command) Int(dest string) (n int, ok bool) {
	n, err := parseInt(c.Str(dest))
	return n, err == nil
}

// IntOr is Int, or def when the dest has no integer value.
func (c *Command) IntOr(dest string, def int) int {
	if n, ok := c.Int(dest); ok {
		return n
	}
	return def
}

// On reports whether a switch is on, given or by default.
func (c *Command) On(dest string) bool { return c.Str(dest) == "true" }

// Mode is the server's --disaggregation-mode: "null", "prefill" or
// "decode".
func (c *Command) Mode() string {
	if m := c.Str("disaggregation_mode"); m != "" {
		return m
	}
	return "null"
}

// PD reports whether the server runs disaggregated.
func (c *Command) PD() bool { return c.Mode() != "null" }

// EnvOn reports whether an environment variable before the command is set
// to a true value, as sglang's environment flags read it.
func (c *Command) EnvOn(name string) bool {
	switch strings.ToLower(c.Env[name]) {
	case "1", "true", "yes", "on", "y", "t":
		return true
	}
	return false
}

// Spelling is the name the user gave a dest's flag, or its usual name.
func (c *Command) Spelling(dest string) string {
	if a := c.last[dest]; a != nil {
		return a.Name
	}
	if fl := c.table.Lookup(dest); fl != nil {
		return fl.Names[0]
	}
	return "--" + strings.ReplaceAll(dest, "_", "-")
}

// Set is a change to one flag in a fix: its new value, or its removal.
type Set struct {
	Dest   string
	Value  string // "" for a switch that is turned on
	Remove bool
}

// To sets a flag to a value in a fix.
func To(dest string, value any) Set {
	switch v := value.(type) {
	case int:
		return Set{Dest: dest, Value: strconv.Itoa(v)}
	case string:
		return Set{Dest: dest, Value: v}
	}
	return Set{Dest: dest}
}

// Drop removes a flag in a fix.
func Drop(dest string) Set { return Set{Dest: dest, Remove: true} }

// Fix renders the flags of some dests as the user wrote them (before) and
// with the changes applied (after). Flags appear in the command's order;
// flags the changes add come last, in the order of show.
func (c *Command) Fix(show []string, changes ...Set) (before, after string) {
	var b, a []string
	shown := map[string]bool{}
	change := func(dest string) (Set, bool) {
		for _, s := range changes {
			if s.Dest == dest {
				return s, true
			}
		}
		return Set{}, false
	}
	wanted := func(dest string) bool {
		for _, d := range show {
			if d == dest {
				return true
			}
		}
		_, ok := change(dest)
		return ok
	}
	for _, arg := range c.Args {
		if arg.Flag == nil || !wanted(arg.Flag.Dest) || c.last[arg.Flag.Dest] != arg {
			continue
		}
		dest := arg.Flag.Dest
		shown[dest] = true
		b = append(b, arg.Text())
		s, ok := change(dest)
		switch {
		case !ok:
			a = append(a, arg.Text())
		case s.Remove:
		case !arg.Flag.TakesValue():
			a = append(a, arg.Name)
		default:
			a = append(a, render(arg.Name, strings.Fields(s.Value), arg.Eq))
		}
	}
	order := append(append([]string(nil), show...), destsOf(changes)...)
	for _, dest := range order {
		s, ok := change(dest)
		if shown[dest] || !ok || s.Remove {
			continue
		}
		shown[dest] = true
		name := c.Spelling(dest)
		if fl := c.table.Lookup(dest); fl != nil && !fl.TakesValue() {
			a = append(a, name)
			continue
		}
		a = append(a, render(name, strings.Fields(s.Value), false))
	}
	return strings.Join(b, " "), strings.Join(a, " ")
}

func destsOf(changes []Set) []string {
	out := make([]string, len(changes))
	for i, s := range changes {
		out[i] = s.Dest
	}
	return out
}

// Text renders the flags of some dests as the user wrote them, or
// "(no --flag)" when none of them is given.
func (c *Command) Text(dests ...string) string {
	before, _ := c.Fix(dests)
	if before == "" {
		return "(no " + c.Spelling(dests[0]) + ")"
	}
	return before
}
