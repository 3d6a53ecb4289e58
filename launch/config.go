package launch

// Lookup makes a command a server configuration, as sglang's server_args
// line is one: a dest's value as the command gives it, or sglang's default.
// Integer flags come out as int64 and switches as bools, so that remedies
// can work with them; other values as written.
func (c *Command) Lookup(dest string) (any, bool) {
	fl := c.table.Lookup(dest)
	if fl == nil || fl.Dest != dest {
		return nil, false
	}
	s := c.Str(dest)
	switch {
	case s == "" && !c.Given(dest):
		return nil, true // None by default
	case !fl.TakesValue():
		return s == "true", true
	case fl.Type == "int":
		if n, err := parseInt(s); err == nil {
			return int64(n), true
		}
	}
	return s, true
}
