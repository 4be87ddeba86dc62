#!/bin/bash
# Ctrl-C during `sched2cu regen` stops the running child (it runs in its own process group, so
# the terminal's SIGINT never reached it: a Triton dump kept running) and removes the temporary
# directory (it was left behind). A stand-in interpreter answers the Triton probe and then hangs
# in the dump; SIGINT goes to sched2cu alone, as a terminal's would with the child in its group.
# Usage: regen_interrupt.sh SCHED2CU SOURCE_DIR SCRATCH
set -u
set -m  # job control: the background regen does not ignore SIGINT (as under a terminal)
bin=$1 src=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch/tmp"
cat > "$scratch/py" <<PY
#!/bin/bash
if [ "\$1" = "-c" ]; then exit 0; fi
echo \$\$ > "$scratch/child.pid"
exec sleep 60
PY
chmod +x "$scratch/py"
TMPDIR="$scratch/tmp" "$bin" regen --cases case6_layernorm --root "$src" --python "$scratch/py" \
  > "$scratch/out" 2>&1 &
parent=$!
for _ in $(seq 100); do [ -s "$scratch/child.pid" ] && break; sleep 0.1; done
[ -s "$scratch/child.pid" ] || { echo "the dump never started"; cat "$scratch/out"; exit 1; }
kill -INT "$parent"
for _ in $(seq 100); do kill -0 "$parent" 2>/dev/null || break; sleep 0.1; done
kill -0 "$parent" 2>/dev/null && { echo "regen still running 10 s after SIGINT"; exit 1; }
wait "$parent"; rc=$?
child=$(cat "$scratch/child.pid")
sleep 0.5
fail=0
[ "$rc" -ne 0 ] || { echo "regen exited 0 after SIGINT"; fail=1; }
kill -0 "$child" 2>/dev/null && { echo "the dump child $child is still running"; kill -9 "$child"; fail=1; }
[ -z "$(ls -A "$scratch/tmp")" ] || { echo "left behind: $(ls "$scratch/tmp")"; fail=1; }
grep -q "interrupted by SIGINT" "$scratch/out" || { echo "no message:"; cat "$scratch/out"; fail=1; }
exit $fail
