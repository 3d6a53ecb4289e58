package matcher

import (
	"bytes"
	"regexp"
)

// A log often holds the command that started the server before sglang
// logs its configuration, or instead of it: a paste that begins with the
// shell prompt, `set -x`'s "+ python3 -m sglang.launch_server …", a
// shell's job report ("line 7: 2502678 Killed   python3 -m …"). The engine
// reads such a command, continued over lines that end in a backslash,
// and the configuration it gives (through the reader the engine was given)
// stands for the server's until a server_args line says otherwise.

// commandStartRE finds where a launch command starts in a line.
var commandStartRE = regexp.MustCompile(`(?:^|[\s$#>+:;])((?:\S*/)?python[0-9.]*\s+(?:-[A-Za-z]+\s+)*-m\s+sglang\.launch_server\b|(?:\S*/)?sglang\s+serve\b|(?:\S*/)?launch_server\.py\b)`)

// maxCommandLines and maxCommandBytes bound a command continued over lines.
const (
	maxCommandLines = 256
	maxCommandBytes = 64 << 10
)

// commandReader gathers a launch command from the lines of an input.
type commandReader struct {
	read  func(text string) Config // nil: commands are not read
	text  []byte                   // the command so far, while it goes on
	open  bool                     // the last line ended in a backslash
	lines int
	cfg   Config // the latest command's configuration
}

// ReadCommands has the engine read the launch commands its input shows,
// with read, which returns a command's configuration or nil for text that
// is not a launch command. Call it before feeding input.
func (e *Engine) ReadCommands(read func(text string) Config) { e.cmd.read = read }

// start reads a line that may hold the start of a launch command.
func (c *commandReader) start(msg []byte) {
	if c.read == nil {
		return
	}
	m := commandStartRE.FindSubmatchIndex(msg)
	if m == nil {
		return
	}
	c.text = append(c.text[:0], msg[m[2]:]...)
	c.lines = 1
	c.more()
}

// next takes a line that may go on with the command being read.
func (c *commandReader) next(msg []byte) {
	c.lines++
	c.text = append(append(c.text, ' '), bytes.TrimSpace(msg)...)
	c.more()
}

// more reads the command when its line does not go on, and otherwise
// waits for the next one.
func (c *commandReader) more() {
	c.text = bytes.TrimRight(c.text, " \t\r")
	if bytes.HasSuffix(c.text, []byte{'\\'}) && c.lines < maxCommandLines && len(c.text) < maxCommandBytes {
		c.text, c.open = c.text[:len(c.text)-1], true
		return
	}
	c.open = false
	if cfg := c.read(string(c.text)); cfg != nil {
		c.cfg = cfg
	}
}
