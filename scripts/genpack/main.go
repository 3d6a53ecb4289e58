// Command genpack writes a pack of user records, for measuring what a
// large --patterns pack costs tailfix to load and to scan with.
//
//	go run ./scripts/genpack -n 100000 -out /tmp/pack
//	tailfix scan --patterns /tmp/pack server.log
//
// The records (see internal/packgen) are derived from the messages sglang
// raises, in the YAML form of the built-in records, -per-file to a file
// (ext/pack-0000.yaml, …). The output is deterministic for a given -seed.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tailfix/tailfix/internal/packgen"
)

func main() {
	n := flag.Int("n", 10000, "records to write")
	out := flag.String("out", "", "directory to write the pack to (created)")
	perFile := flag.Int("per-file", 2000, "records per file")
	seed := flag.Uint64("seed", 1, "seed of the choices made")
	flag.Parse()
	if *out == "" || *n < 0 || *perFile < 1 {
		fmt.Fprintln(os.Stderr, "usage: genpack -n N -out DIR [-per-file K] [-seed S]")
		os.Exit(2)
	}
	if err := packgen.Write(*out, *n, *perFile, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "genpack:", err)
		os.Exit(2)
	}
}
