package patterns

// The two ways ParseYAML reads a file, for the tests of their agreement.
var (
	ParseYAMLFast = parseYAMLFast
	ParseYAMLStd  = parseYAMLStd
)
