#!/usr/bin/env bash
# tailfix on the logs of a server that failed, side by side with the grep a
# user would run (rg -c -i 'error|exception|fail|traceback') in one run:
# a flood of one error line, a crash-heavy mix of the project's log
# fixtures, and logs of 1e5 and 1e6 distinct error messages.
#
#   scripts/bench-errors.sh [SIZE_BYTES] [TAILFIX]   (default 256 MiB; the tree's tailfix)
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
tf=${2:-}
if [ -z "$tf" ]; then
  tf=$work/tailfix
  go build -trimpath -o "$tf" ./cmd/tailfix
fi
go run ./scripts/genfail -mode flood -size "$size" > "$work/flood.log"
go run ./scripts/genfail -mode mix -size "$size" > "$work/mix.log"
go run ./scripts/genfail -mode distinct -n 100000 > "$work/distinct-1e5.log"
go run ./scripts/genfail -mode distinct -n 1000000 > "$work/distinct-1e6.log"

best() { # best wall s, its CPU s, and max RSS KiB of three runs of "$@"
  local t u s m bt=999999 bc=0 bm=0
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > /dev/null 2>&1 || true
    read -r t u s m < <(tail -n 1 "$work/time")
    if awk -v a="$t" -v b="$bt" 'BEGIN{exit !(a<b)}'; then
      bt=$t bc=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')
    fi
    bm=$(( m > bm ? m : bm ))
  done
  echo "$bt $bc $bm"
}

printf '%-16s %9s %9s %8s %8s %9s %9s %11s\n' log MiB tailfix-s cpu-s MB/s peak-MiB rg-s wall-ratio
for name in flood mix distinct-1e5 distinct-1e6; do
  f=$work/$name.log
  cat "$f" > /dev/null
  bytes=$(stat -c %s "$f")
  read -r tt tc tm < <(best "$tf" scan --format json "$f")
  read -r rt _ _ < <(best rg -c -i 'error|exception|fail|traceback' "$f")
  printf '%-16s %9.0f %9.2f %8.2f %8.0f %9d %9.2f %11.1f\n' "$name" \
    "$(awk -v b="$bytes" 'BEGIN{print b/1048576}')" "$tt" "$tc" \
    "$(awk -v b="$bytes" -v t="$tt" 'BEGIN{print b/t/1e6}')" $((tm / 1024)) "$rt" \
    "$(awk -v a="$tt" -v b="$rt" 'BEGIN{print a/b}')"
done
