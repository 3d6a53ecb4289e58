#!/usr/bin/env bash
# What a large pack of user records (--patterns DIR) costs: the start of a
# scan of a small log, patterns list and explain ID, with no extra records
# and with 10,000 and 100,000 of them (scripts/genpack), side by side for
# each build given.
#
#   scripts/bench-packs.sh [TAILFIX...]
#
# Each TAILFIX binary given gets its rows (default: the tree's, built), so
# that two builds are compared in one run. The best wall time of three
# runs is reported, with the CPU seconds (user+system) of that run and the
# peak resident memory of the three. On a busy machine the CPU seconds are
# the steadier figure. Needs GNU time (apt-get install time).
#
#   SIZES="0 10000" scripts/bench-packs.sh    # fewer pack sizes
#   LOG=FILE scripts/bench-packs.sh           # another log to scan
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { echo "bench-packs: needs GNU time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=${SIZES:-0 10000 100000}
log=${LOG:-testdata/logs/oom-tp4-sigquit.log}

bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  go build -trimpath -o "$work/tailfix" ./cmd/tailfix
  bins=("$work/tailfix")
fi
for n in $sizes; do
  [ "$n" -gt 0 ] && go run ./scripts/genpack -n "$n" -out "$work/pack$n"
done

. scripts/bench-lib.sh

printf 'log: %s; %s\n' "$log" "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %-8s %-28s %8s %8s %9s\n' build records command wall-s CPU-s peak-MiB
for tf in "${bins[@]}"; do
  for n in $sizes; do
    args=()
    [ "$n" -gt 0 ] && args=(--patterns "$work/pack$n")
    # An id of the user's pack when there is one, else a built-in one.
    id=torch/cuda-oom
    [ "$n" -gt 0 ] && id=$(awk '/^- id: /{print $3; exit}' "$work/pack$n/ext/pack-0000.yaml")
    for cmd in "scan $log" "patterns list" "explain $id"; do
      read -r t c m < <(best "$tf" $cmd "${args[@]}")
      m=$((m / 1024))
      label=${cmd%% /*}
      label=${label%% testdata*}
      printf '%-16s %-8s %-28s %8.2f %8.2f %9d\n' "$(basename "$tf")" "$n" "${label:0:28}" "$t" "$c" "$m"
    done
  done
done
