#!/usr/bin/env bash
# What following many files costs while they are quiet: `tailfix follow DIR`
# on a directory of N one-line files, idle CPU over a measured stretch (as a
# share of one core, from /proc/PID/stat) and the descriptors it holds,
# against the budget it keeps (half the open-file limit, at most 4096).
#
#   scripts/bench-follow-many.sh [N] [SECONDS] [MAX_CPU_PERCENT]
#
# Defaults: 10000 files, 10 s, no limit. With MAX_CPU_PERCENT it exits 1
# when the idle CPU is above it or the descriptors above the budget.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
secs=${2:-10}
limit=${3:-}
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
go build -trimpath -o "$work/tailfix" ./cmd/tailfix
mkdir "$work/logs"
(cd "$work/logs" && for i in $(seq 1 "$n"); do echo "[2026-11-30 10:00:00 TP0] Load weight begin." > "s$i.log"; done)
"$work/tailfix" follow "$work/logs" > /dev/null 2> "$work/stderr" &
pid=$!
sleep 3 # past the start, when every file is opened once
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
t0=$(ticks)
sleep "$secs"
t1=$(ticks)
fds=$(ls "/proc/$pid/fd" | wc -l)
soft=$(ulimit -Sn)
budget=$(( soft / 2 < 4096 ? soft / 2 : 4096 ))
cpu=$(awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$secs" 'BEGIN { printf "%.2f", 100 * d / hz / s }')
echo "follow $n quiet files for ${secs}s: ${cpu}% of a core, $fds descriptors (budget $budget, limit $soft)"
if [ -s "$work/stderr" ]; then
  echo "stderr:"; head -5 "$work/stderr"
fi
if [ -n "$limit" ]; then
  awk -v c="$cpu" -v l="$limit" 'BEGIN { exit !(c <= l) }' || { echo "idle CPU above ${limit}%"; exit 1; }
  [ "$fds" -le $((budget + 32)) ] || { echo "descriptors above the budget"; exit 1; }
fi
