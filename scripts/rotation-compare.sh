#!/usr/bin/env bash
# How many log lines a file follower loses or repeats when the log is
# rotated, for tailfix's follower (follow, with file events and with
# polling only) and for github.com/nxadm/tail set up for rotating logs
# (Follow, ReOpen, inotify, from the end).
#
#   scripts/rotation-compare.sh [go test flags, e.g. -race]
#
# Runs the rotation suite (follow/rotation_test.go)
# with TAILFIX_ROTATION_NXADM=1 and prints, for each scenario, the seqs lost
# and the seqs delivered more than once by each implementation. A writer
# appends numbered lines while the file is rotated: the copytruncate and
# create scenarios run the real logrotate (apt-get install logrotate; without
# it they are skipped), the others truncate, delete or burst by themselves.
# nxadm's numbers vary from run to run: they depend on races the library
# loses some of the time. The exit status is go test's.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

command -v logrotate >/dev/null || [ -x /usr/sbin/logrotate ] ||
  echo "rotation-compare: logrotate is not installed; its scenarios will be skipped" >&2

out=$(mktemp)
trap 'rm -f "$out"' EXIT
TAILFIX_ROTATION_NXADM=1 go test -count=1 -timeout 10m -run 'TestRotation' -v "$@" \
  ./follow/ >"$out" 2>&1
status=$?

awk '
  # "    rotation_test.go:123: nxadm create: lost=300 dup=0 (first lost: ...) ..."
  match($0, /: (ours|ours-polling|nxadm) [a-z-]+: lost=[0-9]+ dup=[0-9]+/) {
    split(substr($0, RSTART + 2, RLENGTH - 2), f, /[ :=]+/)
    impl = f[1]; sc = f[2]
    cell[sc, impl] = "lost=" f[4] " dup=" f[6]
    detail[sc, impl] = substr($0, RSTART + RLENGTH + 1)
    if ($0 ~ /other-lines=/) { sub(/.*other-lines=/, ""); cell[sc, impl] = cell[sc, impl] " other=" $1 + 0 }
    seen(sc, impl)
    next
  }
  # "    rotation_test.go:124: nxadm create outcome: 1700 of 2000 seqs arrived ..."
  match($0, /: (ours|ours-polling|nxadm) [a-z-]+ outcome: /) {
    split(substr($0, RSTART + 2, RLENGTH - 2), f, / /)
    note[f[2], f[1]] = substr($0, RSTART + RLENGTH)
    next
  }
  # "    --- SKIP: TestRotationOurs/create (0.00s)"
  /--- SKIP: TestRotation[A-Za-z]+\/[a-z-]+/ {
    match($0, /TestRotation[A-Za-z]+\/[a-z-]+/)
    split(substr($0, RSTART, RLENGTH), f, /\//)
    impl = f[1] == "TestRotationOurs" ? "ours" : f[1] == "TestRotationOursPolling" ? "ours-polling" : "nxadm"
    cell[f[2], impl] = "skipped"
    seen(f[2], impl)
  }
  function seen(sc, impl) {
    if (!(sc in isSc)) { isSc[sc] = 1; scs[++nsc] = sc }
    if (!(impl in isImpl)) { isImpl[impl] = 1 }
  }
  END {
    if (nsc == 0) { print "rotation-compare: no results in the test output" > "/dev/stderr"; exit 1 }
    n = split("ours ours-polling nxadm", order, " ")
    for (i = 1; i <= n; i++) if (order[i] in isImpl) impls[++nimpl] = order[i]
    printf "%-26s", "scenario"
    for (i = 1; i <= nimpl; i++) printf "  %-24s", impls[i]
    printf "\n"
    for (s = 1; s <= nsc; s++) {
      printf "%-26s", scs[s]
      for (i = 1; i <= nimpl; i++) {
        c = cell[scs[s], impls[i]]
        printf "  %-24s", c == "" ? "-" : c
      }
      printf "\n"
    }
    printf "\nwhere not ok:\n"
    any = 0
    for (s = 1; s <= nsc; s++)
      for (i = 1; i <= nimpl; i++) {
        o = note[scs[s], impls[i]]
        if (o != "" && o !~ /^ok;/) {
          printf "  %s %s: %s\n    %s\n", impls[i], scs[s], o, detail[scs[s], impls[i]]
          any = 1
        }
      }
    if (!any) print "  (everything was ok)"
  }
' "$out"

if [ "$status" -ne 0 ]; then
  echo
  echo "go test failed (exit $status); its output:"
  grep -v '^=== RUN' "$out"
fi
exit "$status"
