package remedies

import (
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// builtin is the built-in pack and sglang's newest flag table, which the
// tests of fixes judge against.
func builtin(t testing.TB) (*patterns.Pack, *patterns.FlagTable) {
	t.Helper()
	pack, err := patterns.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return pack, flagTable(t)
}

// flagTable is sglang's newest flag table.
func flagTable(t testing.TB) *patterns.FlagTable {
	t.Helper()
	table, err := patterns.Flags()
	if err != nil {
		t.Fatal(err)
	}
	return table
}
