package diagnose

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// floodLog is a decode server's log once its prefill peer is gone: the
// transfer failure of testdata/logs/pd-decode-minimax-tp4.log repeated
// for every request until size bytes, its clock, rank, request id and
// room changing from line to line, as scripts/genfail writes it.
func floodLog(t testing.TB, size int) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "logs", "pd-decode-minimax-tp4.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var line string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte("Decode transfer failed")) {
			line = sc.Text()
			break
		}
	}
	// "[2026-09-06 11:09:12 TP0] Decode transfer failed … rid='…' …"
	_, msg, ok := bytes.Cut([]byte(line), []byte("] "))
	if !ok {
		t.Fatal("no transfer failure in pd-decode-minimax-tp4.log")
	}
	const rid, room = "4f1c0a9e2b7d4c55", "8821405512977"
	format := string(bytes.ReplaceAll(bytes.ReplaceAll(msg, []byte(rid), []byte("%016x")), []byte(room), []byte("%d")))
	format = string(bytes.Replace([]byte(format), []byte("rank=0"), []byte("rank=%d"), 1))
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		s := i / 100
		fmt.Fprintf(&b, "[2026-09-06 %02d:%02d:%02d TP%d] ", 11+s/3600%12, s/60%60, s%60, i%8)
		fmt.Fprintf(&b, format, i%8, uint64(i)*0x9e3779b97f4a7c15, 7000+i, 7000+i)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// mixLog is the project's log fixtures one after another and again until
// size bytes: tracebacks of many kinds across ranks amid healthy lines.
func mixLog(t testing.TB, size int) []byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "logs", "*.log"))
	if err != nil || len(paths) == 0 {
		t.Fatal("no log fixtures")
	}
	slices.Sort(paths)
	var logs [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		logs = append(logs, data)
	}
	var b bytes.Buffer
	for b.Len() < size {
		for _, l := range logs {
			b.Write(l)
		}
	}
	return b.Bytes()
}

func benchScan(b *testing.B, log []byte) {
	m := builtinMatcher(b)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := New(m, Options{})
		if err := s.Add("flood.log", SourceOptions{}).Scan(bytes.NewReader(log)); err != nil {
			b.Fatal(err)
		}
		s.Reports()
	}
}

// BenchmarkScanFlood diagnoses 32 MiB of one error line repeated, the
// way scan does: what a log costs where tailfix is slowest.
func BenchmarkScanFlood(b *testing.B) { benchScan(b, floodLog(b, 32<<20)) }

// BenchmarkScanMix diagnoses 32 MiB of the log fixtures, again and again.
func BenchmarkScanMix(b *testing.B) { benchScan(b, mixLog(b, 32<<20)) }
