package matcher

import (
	"bytes"
	"testing"
)

// BenchmarkScanJournald scans a log whose every line carries journald's
// prefix: once its header is learnt, the engine looks at every line.
func BenchmarkScanJournald(b *testing.B) {
	m := builtinMatcher(b)
	var log []byte
	for line := range bytes.Lines(synthLog(16 << 20)) {
		log = append(append(log, "Mar 14 06:20:31 gpu-node-4 python3[5120]: "...), line...)
	}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e := m.NewEngine("x", func(Occurrence) {})
		if err := e.Scan(bytes.NewReader(log)); err != nil {
			b.Fatal(err)
		}
	}
}
