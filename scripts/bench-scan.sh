#!/usr/bin/env bash
# Side-by-side speed and memory of `tailfix scan` against ripgrep on a large
# generated sglang-style log.
#
#   scripts/bench-scan.sh [SIZE_BYTES] [TAILFIX...]     (default 1 GiB)
#
# Each TAILFIX binary given gets its row (default: the tree's, built), so
# that two builds are compared in one run.
#
# Needs ../shared/bench (the log generator), ripgrep (apt-get install
# ripgrep) and GNU time (apt-get install time). The reference is
# `rg -c -F -f literals.txt` over the 1,000 literals genpat writes; tailfix
# runs its whole built-in pack. Each is run three times, file in page cache;
# the best wall time, the CPU seconds (user+system) of that run and the
# peak resident memory are reported. On a busy machine the CPU seconds are
# the steadier figure.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-$((1 << 30))}
bench=../shared/bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in rg /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-scan: needs $tool" >&2; exit 2; }
done

shift || true
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  go build -trimpath -o "$work/tailfix" ./cmd/tailfix
  bins=("$work/tailfix")
fi
(cd "$bench" && go run ./genpat -out "$work" -n 1000 -jsonl ../sglang/raise-sites.jsonl >/dev/null)
(cd "$bench" && go run ./genlog -size "$size" -samples "$work/samples.tsv") > "$work/big.log"
cat "$work/big.log" > /dev/null # warm the page cache

. scripts/bench-lib.sh

read -r rt rc rm < <(best rg -c -F -f "$work/literals.txt" "$work/big.log")
mb=$(awk -v s="$size" 'BEGIN{printf "%.0f", s/1048576}')
printf 'log: %s MiB, %s lines\n' "$mb" "$(wc -l < "$work/big.log")"
printf '%-20s %6.2f s  %6.2f CPU-s  %6.0f MB/s  peak %5d MiB (includes mapped file pages)\n' "rg -c -F -f" "$rt" "$rc" \
  "$(awk -v s="$size" -v t="$rt" 'BEGIN{print s/t/1e6}')" $((rm / 1024))
for tf in "${bins[@]}"; do
  read -r tt tc tm < <(best "$tf" scan --format json "$work/big.log")
  printf '%-20s %6.2f s  %6.2f CPU-s  %6.0f MB/s  peak %5d MiB  time ratio to rg %.2f\n' "$(basename "$tf") scan" "$tt" "$tc" \
    "$(awk -v s="$size" -v t="$tt" 'BEGIN{print s/t/1e6}')" $((tm / 1024)) "$(awk -v a="$tt" -v b="$rt" 'BEGIN{print a/b}')"
done
