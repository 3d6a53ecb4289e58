#!/usr/bin/env bash
# Pipe throughput side by side: `cat LOG | tailfix > /dev/null` against
# `cat LOG | cat > /dev/null`, on a large generated sglang-style log.
#
#   scripts/bench-pipe.sh [LOG]     (default: a 1 GiB log from ../shared/bench)
#
# Each is run three times with the file in page cache; the best wall time
# is reported, with the throughput and the ratio of the two.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=${1:-}
if [ -z "$log" ]; then
  log=$work/big.log
  (cd ../shared/bench && go run ./genpat -out "$work" -n 1000 -jsonl ../sglang/raise-sites.jsonl >/dev/null)
  (cd ../shared/bench && go run ./genlog -size $((1 << 30)) -samples "$work/samples.tsv") > "$log"
fi
go build -trimpath -o "$work/tailfix" ./cmd/tailfix
cat "$log" > /dev/null # warm the page cache

best() { # best wall seconds of three runs of the shell command "$1"
  local b=999999 t
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N)
    sh -c "$1"
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    b=$(echo "if ($t < $b) $t else $b" | bc)
  done
  echo "$b"
}
size=$(stat -c %s "$log")
ref=$(best "cat '$log' | cat > /dev/null")
tf=$(best "cat '$log' | '$work/tailfix' --fail-on never > /dev/null 2>/dev/null")
printf 'cat | cat      %6.2f s  %6.0f MB/s\n' "$ref" "$(echo "$size / $ref / 1000000" | bc -l)"
printf 'cat | tailfix  %6.2f s  %6.0f MB/s\n' "$tf" "$(echo "$size / $tf / 1000000" | bc -l)"
printf 'ratio          %6.2f\n' "$(echo "$tf / $ref" | bc -l)"
