#!/usr/bin/env bash
# Side-by-side speed and memory of `tailfix scan` against ripgrep on a large
# generated sglang-style log.
#
#   scripts/bench-scan.sh [SIZE_BYTES]     (default 1 GiB)
#
# Needs ../shared/bench (the log generator), ripgrep (apt-get install
# ripgrep) and GNU time (apt-get install time). The reference is
# `rg -c -F -f literals.txt` over the 1,000 literals genpat writes; tailfix
# runs its whole built-in pack. Each is run three times, file in page cache;
# the best wall time and the peak resident memory are reported.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-$((1 << 30))}
bench=../shared/bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in rg /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-scan: needs $tool" >&2; exit 2; }
done

(cd "$bench" && go run ./genpat -out "$work" -n 1000 -jsonl ../sglang/raise-sites.jsonl >/dev/null)
(cd "$bench" && go run ./genlog -size "$size" -samples "$work/samples.tsv") > "$work/big.log"
go build -trimpath -o "$work/tailfix" ./cmd/tailfix
cat "$work/big.log" > /dev/null # warm the page cache

best() { # best wall seconds and max RSS KiB of three runs of "$@"
  local t m bt=999999 bm=0
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" > /dev/null 2>&1 || true
    read -r t m < <(tail -n 1 "$work/time")
    bt=$(awk -v a="$t" -v b="$bt" 'BEGIN{print (a<b)?a:b}')
    bm=$(( m > bm ? m : bm ))
  done
  echo "$bt $bm"
}

read -r tt tm < <(best "$work/tailfix" scan --format json "$work/big.log")
read -r rt rm < <(best rg -c -F -f "$work/literals.txt" "$work/big.log")
mb=$(awk -v s="$size" 'BEGIN{printf "%.0f", s/1048576}')
printf 'log: %s MiB, %s lines\n' "$mb" "$(wc -l < "$work/big.log")"
printf 'tailfix scan  %6.2f s  %7.0f MB/s  peak %5d MiB\n' "$tt" "$(awk -v s="$size" -v t="$tt" 'BEGIN{print s/t/1e6}')" $((tm / 1024))
printf 'rg -c -F -f   %6.2f s  %7.0f MB/s  peak %5d MiB (includes mapped file pages)\n' "$rt" "$(awk -v s="$size" -v t="$rt" 'BEGIN{print s/t/1e6}')" $((rm / 1024))
printf 'time ratio tailfix/rg: %.2f\n' "$(awk -v a="$tt" -v b="$rt" 'BEGIN{print a/b}')"
