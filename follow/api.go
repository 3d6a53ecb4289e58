// Package follow reads log files as they grow, through rotation,
// truncation, deletion and files that appear later, and hands their bytes
// to a callback. It is an input adapter with no knowledge of what the
// bytes mean: `tailfix follow` (cmd/tailfix) feeds them to the matcher,
// and any program that tails rotating logs can use it the same way.
//
// New finds the files and records where each ends, at once; Run reads
// what is written from then on. A caller with slow work of its own to do
// before reading (loading patterns, connecting somewhere) calls New first,
// so that nothing written meanwhile is missed. Follow does both.
//
// The package never prints: problems and notices go to the callbacks in
// Options.
package follow

import "time"

// Chunk is data read from a followed file.
type Chunk struct {
	// Path names the file that holds Data: the path as it was matched (a
	// path, or a glob's or a directory's match). Bytes drained from a file
	// rotated away (renamed or deleted while its writer still writes to
	// it) are not bytes of the new file at the path, except the rest of a
	// line the path was in the middle of: their Path is the name the old
	// file has now, such as "logs/server.log.1" or
	// "logs/server.log (deleted)", or "PATH (rotated)" when that cannot
	// be told. Such a Path's first chunk has Break set; its lines are
	// counted from there, not from the start of that file.
	Path string
	// Data is valid only until the callback returns.
	Data []byte
	// Break is true when Data does not continue the bytes delivered before
	// it for Path: the first data of a file, or the first after the file
	// was rotated, recreated or truncated. A reader must not join a partial
	// last line from before to it.
	Break bool
	// Restart is true when Data starts at offset 0 of the file at Path: a
	// file read from its beginning, one that appeared, was recreated, or
	// was truncated. Line numbers start again at 1. Restart implies Break.
	Restart bool
}

// Options tune New and Follow.
type Options struct {
	// FromStart reads the files that exist when New runs from their
	// beginning; otherwise only what is written after. Files that appear
	// later are always read from their beginning.
	FromStart bool
	// Poll is how often every file is checked even without a file event,
	// and the interval of polling when file events are not available.
	// Zero means 250 ms.
	Poll time.Duration
	// Warn receives problems that do not stop following: a file that
	// cannot be read, file events that are not available.
	Warn func(path string, err error)
	// Notice receives, once for each pattern that names nothing yet, what
	// the follower will do about it: msg is "waiting for PATH to appear"
	// for a path that does not exist, "no file matches GLOB yet; waiting"
	// for a glob and "no file in DIR yet; waiting" for an empty directory.
	// pattern is the pattern as given.
	Notice func(pattern, msg string)
	// Polling turns file events off, as when the system's inotify watches
	// have run out.
	Polling bool

	keepIdle time.Duration // tests: how long a quiet file rotated away is kept
	maxOpen  int           // tests: how many files are kept open
	// afterDrain, for tests, runs in a check between draining the files
	// rotated away and looking at the path: where a writer's next steps
	// may fall.
	afterDrain func()
}
