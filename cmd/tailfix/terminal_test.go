package main

import (
	"bytes"
	"strings"
	"testing"
)

// Colour is decided for the stream that is written: the pipe's hints on a
// terminal stderr are coloured while its stdout goes to a file, and hints
// going to a file are not coloured because stdout is a terminal.
func TestColourIsDecidedPerWriter(t *testing.T) {
	noEnv := func(string) string { return "" }

	term, read := openTerminal(t)
	var stdout bytes.Buffer
	run(nil, strings.NewReader(dyingServer), &stdout, term, noEnv)
	if hints := read(); !strings.Contains(hints, "torch/cuda-oom") || !strings.Contains(hints, "\x1b[") {
		t.Errorf("hints to a terminal are not coloured when stdout is a file:\n%q", hints)
	}

	term, _ = openTerminal(t)
	var stderr bytes.Buffer
	run(nil, strings.NewReader(dyingServer), term, &stderr, noEnv)
	if hints := stderr.String(); !strings.Contains(hints, "torch/cuda-oom") || strings.Contains(hints, "\x1b[") {
		t.Errorf("hints to a file are coloured because stdout is a terminal:\n%q", hints)
	}
}
