# Shared by the bench-*.sh scripts; sourced, not run. Needs GNU time and a
# scratch directory in $work.

# best runs "$@" three times, output discarded, and prints the best wall
# seconds, the CPU seconds (user+system) of that run, and the largest peak
# resident memory of the three, in KiB.
best() {
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
