// Command genfail writes the logs of a server that failed, for measuring
// tailfix where it is slowest: the errors, not the healthy lines.
//
//	go run ./scripts/genfail -mode flood -size 268435456 > flood.log
//	go run ./scripts/genfail -mode mix -size 268435456 > mix.log
//	go run ./scripts/genfail -mode distinct -n 1000000 > distinct.log
//
// flood: one decode-side transfer error repeated, its request id, room and
// clock changing from line to line, as a decode server writes it for every
// request while its prefill peer is gone.
//
// mix: the project's own log fixtures (testdata/logs) one after another
// and again until the size is reached: tracebacks of many kinds across
// ranks, glog and NCCL lines, amid healthy lines.
//
// distinct: n error lines no record knows, each a different message once
// numbers and ids are masked, one healthy batch line between two of them:
// as many distinct findings as lines of error.
//
// The output is deterministic.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	mode := flag.String("mode", "flood", "flood, mix or distinct")
	size := flag.Int64("size", 256<<20, "bytes to write (flood, mix)")
	n := flag.Int("n", 100000, "distinct error lines (distinct)")
	fixtures := flag.String("fixtures", "testdata/logs", "the log fixtures (mix)")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var err error
	switch *mode {
	case "flood":
		err = flood(w, *size)
	case "mix":
		err = mix(w, *size, *fixtures)
	case "distinct":
		err = distinct(w, *n)
	default:
		err = fmt.Errorf("unknown mode %q: flood, mix or distinct", *mode)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfail:", err)
		os.Exit(2)
	}
}

// clock is the log's time of line i, a second per 100 lines.
func clock(i int64) string {
	s := i / 100
	return fmt.Sprintf("2026-03-18 %02d:%02d:%02d", 10+s/3600%12, s/60%60, s%60)
}

func flood(w *bufio.Writer, size int64) error {
	var n int64
	for i := int64(0); n < size; i++ {
		k, err := fmt.Fprintf(w, "[%s TP%d] Decode transfer failed for request rank=%d decode_req.req.rid='%016x%016x' decode_req.req.bootstrap_room=%d with exception KVTransferError(bootstrap_room=%d): Failed to get kvcache from prefill instance, it might be dead\n",
			clock(i), i%8, i%8, uint64(i)*0x9e3779b97f4a7c15, uint64(i)*0xbf58476d1ce4e5b9, 7000+i, 7000+i)
		if err != nil {
			return err
		}
		n += int64(k)
	}
	return nil
}

func mix(w *bufio.Writer, size int64, dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil || len(paths) == 0 {
		return fmt.Errorf("no *.log in %s", dir)
	}
	slices.Sort(paths)
	var logs [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		logs = append(logs, b)
	}
	var n int64
	for n < size {
		for _, b := range logs {
			k, err := w.Write(b)
			if err != nil {
				return err
			}
			n += int64(k)
		}
	}
	return nil
}

// word spells i in letters that are not hexadecimal digits, so that
// masking numbers and ids leaves the messages different.
func word(i int) string {
	const letters = "ghijklmnopqrstuvwxyz"
	var b strings.Builder
	for {
		b.WriteByte(letters[i%len(letters)])
		i /= len(letters)
		if i == 0 {
			return b.String()
		}
	}
}

func distinct(w *bufio.Writer, n int) error {
	for i := range n {
		t := clock(int64(2 * i))
		if _, err := fmt.Fprintf(w, "[%s TP%d] Decode batch. #running-req: %d, #token: %d, token usage: 0.%02d, gen throughput (token/s): %d.00, #queue-req: 0\n[%s TP%d] ERROR: failed to open shard %s of checkpoint layer %d\n",
			t, i%8, i%64, 1000+i%5000, i%100, 500+i%900, t, i%8, word(i), i%61); err != nil {
			return err
		}
	}
	return nil
}
