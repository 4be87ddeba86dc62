#!/bin/sh
# Runs a sched2cu GPU test command only where a Hopper GPU is visible: exit 77 (ctest: skipped)
# and print "SKIP: no Hopper GPU" otherwise. $1 is the sched2cu binary, the rest its arguments.
bin="$1"
probe=$("$bin" __gpu-probe 2>/dev/null) || { echo "SKIP: no Hopper GPU"; exit 77; }
case "$probe" in
  *'"major":9'*) ;;
  *) echo "SKIP: no Hopper GPU ($probe)"; exit 77 ;;
esac
exec "$@"
