// Package follow reads log files as they grow, through rotation,
// truncation, deletion and files that appear later, and hands their bytes
// to a callback. It is tailfix's input adapter for `tailfix follow`.
package follow

import "time"

// Chunk is data read from a followed file.
type Chunk struct {
	// Path names the file as it was matched (a path, or a glob's match).
	Path string
	// Data is valid only until the callback returns.
	Data []byte
	// Break is true when Data does not continue the bytes delivered before
	// it for Path: the first data of a file, or the first after the file
	// was rotated, recreated or truncated. A reader must not join a partial
	// last line from before to it.
	Break bool
}

// Options tune Follow.
type Options struct {
	// FromStart reads the files that exist when Follow starts from their
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
	// Polling turns file events off, as when the system's inotify watches
	// have run out.
	Polling bool
}
