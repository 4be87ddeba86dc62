#!/bin/sh
# A stand-in for `sched2cu schedule|emit IN -o OUT` (RegenOptions::sched2cu) in the regen tests:
# the "graph" is the TTGIR's text under a heading, the "kernel" the graph's under another. A
# TTGIR holding SCHEDULE_FAILS makes schedule fail, EMIT_FAILS makes emit fail with a long
# two-line error, as the real stages fail. `schedule ... --grid G` writes "grid G" under the heading.
cmd=$1 in=$2 out=$4 flag=${5:-} value=${6:-}
case "$cmd" in
  schedule)
    if grep -q SCHEDULE_FAILS "$in"; then
      echo "$in:1:1: error: schedule: the fake scheduler refuses this kernel" >&2
      exit 1
    fi
    { echo "graph of $in"; [ "$flag" = --grid ] && echo "grid $value"; cat "$in"; } > "$out" ;;
  emit)
    if grep -q EMIT_FAILS "$in"; then
      printf '%s\n' "kernel.py:7:12: error: emit: op 39 'arith.subf' cannot be lowered: $(printf 'x%.0s' $(seq 1 150)) the end of the first line" \
        "kernel.py:9:3: error: emit: op 41 'math.exp' cannot be lowered either" >&2
      exit 1
    fi
    { echo "kernel from"; tail -n +2 "$in"; } > "$out" ;;
  *) echo "fake sched2cu: unknown command $cmd" >&2; exit 2 ;;
esac
