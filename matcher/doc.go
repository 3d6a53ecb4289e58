// Package matcher turns bytes into occurrences of known and unknown
// errors. It compiles a pack of records into one automaton (the literal
// every match must contain, in one Aho-Corasick automaton; a record's
// regexp runs only on the lines it proposes), frames a stream into lines
// the same way for every reader, takes each line apart (platform stamps,
// stream prefixes, sglang's "[time TP0]" header and other formats' levels),
// and assembles the lines of each stream into events: Python tracebacks
// with their chains, thread exceptions, log records with continuation
// lines, native crash reports. An Engine reports each event as it ends.
//
// Engine.Scan reads a whole input on every core; Engine.Live feeds one
// from a live source; Engine.Write and Flush do it on the caller's
// goroutine. Package diagnose merges the occurrences into findings.
package matcher
