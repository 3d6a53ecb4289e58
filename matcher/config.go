package matcher

// IsPair reports whether c is the configuration of a prefill/decode pair,
// which answers "prefill.x" and "decode.x": it says more about a
// disagreement between the two servers than one side's configuration.
func IsPair(c Config) bool {
	_, ok := c.(pairConfig)
	return ok
}
