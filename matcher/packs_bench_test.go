package matcher

import (
	"fmt"
	"testing"

	"github.com/tailfix/tailfix/internal/packgen"
	"github.com/tailfix/tailfix/patterns"
)

// The start-up of a command given a large pack of a user's records
// (--patterns DIR): the built-in pack and the user's loaded, joined and,
// for the Compile benchmarks, compiled into the matcher. The pack is
// written by internal/packgen (as scripts/genpack writes it) before the
// clock starts.

func BenchmarkLoadExtra10k(b *testing.B)     { benchExtra(b, 10_000, false) }
func BenchmarkLoadExtra100k(b *testing.B)    { benchExtra(b, 100_000, false) }
func BenchmarkCompileExtra10k(b *testing.B)  { benchExtra(b, 10_000, true) }
func BenchmarkCompileExtra100k(b *testing.B) { benchExtra(b, 100_000, true) }

func benchExtra(b *testing.B, n int, compile bool) {
	dir := b.TempDir()
	if err := packgen.Write(dir, n, 2000, 1); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		pack, err := loadWith(dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(pack.Records) < n {
			b.Fatalf("%d records, want at least %d", len(pack.Records), n)
		}
		if compile {
			if _, err := Compile(pack); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// loadWith is the built-in pack with the records of dir, as --patterns
// DIR loads them.
func loadWith(dir string) (*patterns.Pack, error) {
	pack, err := patterns.Builtin()
	if err != nil {
		return nil, err
	}
	extra, err := patterns.LoadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	return pack.With(extra)
}
