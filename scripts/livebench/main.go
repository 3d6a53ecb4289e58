// Command livebench measures tailfix's live modes against their targets:
// how long after a line is written its hint appears (follow and run), and
// the peak memory of following a file that grows by a large log.
//
//	go build -o /tmp/tailfix ./cmd/tailfix
//	go run ./scripts/livebench -tailfix /tmp/tailfix -mode latency-follow
//	go run ./scripts/livebench -tailfix /tmp/tailfix -mode latency-run
//	go run ./scripts/livebench -tailfix /tmp/tailfix -mode memory -log big.log
//
// Latency: tailfix runs with --format json, so each new finding is one JSON
// line: on its stdout for follow, on its stderr for run (whose stdout is
// the child's). The bench writes probe lines, each an error no other
// line resembles, among ordinary log lines, and times each from the write
// to its finding; it prints p50, p99 and max. For follow the probes are
// appended to a followed file; for run the bench runs itself as tailfix's
// child and writes them to its stderr.
//
// Memory: tailfix follows an empty file while the bench appends the log to
// it; when tailfix has read it all (its lines are counted in the summary),
// the bench reads tailfix's peak resident memory (VmHWM) from /proc.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("tailfix", "tailfix", "the tailfix binary")
	mode := flag.String("mode", "latency-follow", "latency-follow, latency-run or memory")
	probes := flag.Int("probes", 300, "probe lines to time")
	logPath := flag.String("log", "", "the log to append, for memory")
	child := flag.Bool("child", false, "internal: write probes as tailfix run's child")
	flag.DurationVar(&gap, "gap", 20*time.Millisecond, "quiet time after each probe: shorter than tailfix's idle time, the next line ends the probe's event; longer, the idle time does")
	flag.Parse()
	var err error
	switch {
	case *child:
		err = writeProbes(os.Stderr, *probes)
	case *mode == "latency-follow":
		err = latencyFollow(*bin, *probes)
	case *mode == "latency-run":
		err = latencyRun(*bin, *probes)
	case *mode == "memory":
		err = memory(*bin, *logPath)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "livebench:", err)
		os.Exit(1)
	}
}

// probeWord spells n in letters: findings of unknown errors are merged
// when they differ only in numbers, so each probe differs in words.
func probeWord(n int) string {
	var b []byte
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return string(b)
		}
	}
}

// probe is one timed line: it is an error tailfix reports as a new finding.
func probe(n int) string {
	return fmt.Sprintf("ValueError: livebench probe %s sent at %d\n", probeWord(n), time.Now().UnixNano())
}

// noise is an ordinary line of a serving log.
const noise = "[2026-11-29 10:15:27 TP0] Decode batch, #running-req: 12, #token: 20480, token usage: 0.31, cuda graph: True, gen throughput (token/s): 812.50, #queue-req: 0\n"

// gap is the quiet time after each probe.
var gap time.Duration

// writeProbes writes probes among noise lines, each followed by gap.
func writeProbes(w io.Writer, n int) error {
	for i := range n {
		for range 20 {
			if _, err := io.WriteString(w, noise); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, probe(i)); err != nil {
			return err
		}
		time.Sleep(gap)
	}
	return nil
}

// collect reads the stream tailfix writes its findings to and returns the
// latency of each probe finding, measured against the send time in its
// message.
func collect(r io.Reader, want int, done chan<- []time.Duration) {
	var lat []time.Duration
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		now := time.Now()
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue // the child's own stderr, passed through, or a note
		}
		var f struct{ Message string }
		if json.Unmarshal(line, &f) != nil {
			continue
		}
		i := strings.LastIndex(f.Message, "sent at ")
		if !strings.Contains(f.Message, "livebench probe") || i < 0 {
			continue
		}
		sent, err := strconv.ParseInt(f.Message[i+len("sent at "):], 10, 64)
		if err != nil {
			continue
		}
		lat = append(lat, now.Sub(time.Unix(0, sent)))
		if len(lat) == want {
			break
		}
	}
	done <- lat
	io.Copy(io.Discard, r) // let tailfix write its summary
}

func report(what string, lat []time.Duration, want int) error {
	if len(lat) < want {
		return fmt.Errorf("%s: only %d of %d probes were reported", what, len(lat), want)
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Printf("%s: %d probes  p50 %v  p99 %v  max %v\n", what, len(lat),
		q(0.50).Round(time.Microsecond), q(0.99).Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
	return nil
}

func latencyFollow(bin string, n int) error {
	dir, err := os.MkdirTemp("", "livebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "server.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(bin, "follow", "--format", "json", "--fail-on", "never", path)
	cmd.Stderr = os.Stderr          // warnings and notes
	stdout, err := cmd.StdoutPipe() // follow writes its findings to stdout
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan []time.Duration, 1)
	go collect(stdout, n, done)
	time.Sleep(300 * time.Millisecond) // let it start watching
	if err := writeProbes(f, n); err != nil {
		return err
	}
	var lat []time.Duration
	select {
	case lat = <-done:
	case <-time.After(5*time.Second + time.Duration(n)*gap):
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	return report("follow", lat, n)
}

func latencyRun(bin string, n int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "run", "--format", "json", "--", self, "-child", "-probes", strconv.Itoa(n), "-gap", gap.String())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan []time.Duration, 1)
	go collect(stderr, n, done)
	lat := <-done
	cmd.Wait()
	return report("run", lat, n)
}

func memory(bin, logPath string) error {
	if logPath == "" {
		return fmt.Errorf("memory needs -log, a large log to append")
	}
	src, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "livebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "server.log")
	dst, err := os.Create(path)
	if err != nil {
		return err
	}
	defer dst.Close()
	cmd := exec.Command(bin, "follow", "--format", "json", "--fail-on", "never", path)
	cmd.Stdout = io.Discard
	var summary strings.Builder
	cmd.Stderr = &summary
	if err := cmd.Start(); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	if _, err := io.Copy(dst, src); err != nil {
		return err
	}
	wrote := time.Since(start)
	// tailfix has read the file when its read offset is at the end: watch
	// its open file's position in /proc.
	for {
		if pos, ok := readPos(cmd.Process.Pid); ok && pos >= st.Size() {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	caught := time.Since(start)
	hwm := peakRSS(cmd.Process.Pid)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	fmt.Printf("memory: followed %d MiB (written in %v, read by %v): peak RSS %d MiB\n",
		st.Size()>>20, wrote.Round(time.Millisecond), caught.Round(time.Millisecond), hwm>>10)
	return nil
}

// readPos says how many bytes a process has read in all: tailfix reads the
// followed file with pread, which leaves no file position to look at, but
// its bytes count in /proc/PID/io.
func readPos(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// peakRSS returns a process's peak resident set in KiB.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}
