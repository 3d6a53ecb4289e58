#!/usr/bin/env bash
# tailfix on the logs of a server that failed, side by side with the grep a
# user would run (rg -c -i 'error|exception|fail|traceback') in one run:
# a flood of one error line, a crash-heavy mix of the project's log
# fixtures, and logs of 1e5 and 1e6 distinct error messages.
#
#   scripts/bench-errors.sh [SIZE_BYTES] [TAILFIX...]
#
# SIZE_BYTES is the size of the flood and of the mix (default 256 MiB);
# each TAILFIX binary given gets its row (default: the tree's, built), so
# that two builds are compared in one run.
#
# Needs ripgrep and GNU time. Each command runs three times, file in page
# cache; the best wall time, the CPU seconds (user+system) of that run and
# the largest peak resident memory are reported. On a busy machine the
# CPU seconds are the steadier figure.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-$((256 << 20))}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for tool in rg /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-errors: needs $tool" >&2; exit 2; }
done
shift || true
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  go build -trimpath -o "$work/tailfix" ./cmd/tailfix
  bins=("$work/tailfix")
fi
go run ./scripts/genfail -mode flood -size "$size" > "$work/flood.log"
go run ./scripts/genfail -mode mix -size "$size" > "$work/mix.log"
go run ./scripts/genfail -mode distinct -n 100000 > "$work/distinct-1e5.log"
go run ./scripts/genfail -mode distinct -n 1000000 > "$work/distinct-1e6.log"

. scripts/bench-lib.sh

printf '%-14s %5s  %-22s %7s %6s %7s %5s  %6s %6s %6s\n' log MiB command wall-s cpu-s MB/s MiB rg-s ratio cpu/rg
for name in flood mix distinct-1e5 distinct-1e6; do
  f=$work/$name.log
  cat "$f" > /dev/null
  bytes=$(stat -c %s "$f")
  mib=$(awk -v b="$bytes" 'BEGIN{printf "%.0f", b/1048576}')
  read -r rt rc _ < <(best rg -c -i 'error|exception|fail|traceback' "$f")
  printf '%-14s %5s  %-22s %7.2f %6.2f %7.0f %5s\n' "$name" "$mib" "rg -c -i" "$rt" "$rc" \
    "$(awk -v b="$bytes" -v t="$rt" 'BEGIN{print b/t/1e6}')" -
  for tf in "${bins[@]}"; do
    read -r tt tc tm < <(best "$tf" scan --format json "$f")
    printf '%-14s %5s  %-22s %7.2f %6.2f %7.0f %5d  %6.2f %6.1f %6.1f\n' "$name" "$mib" "$(basename "$tf") scan" "$tt" "$tc" \
      "$(awk -v b="$bytes" -v t="$tt" 'BEGIN{print b/t/1e6}')" $((tm / 1024)) "$rt" \
      "$(awk -v a="$tt" -v b="$rt" 'BEGIN{print a/b}')" "$(awk -v a="$tc" -v b="$rc" 'BEGIN{print (b>0)?a/b:0}')"
  done
done
