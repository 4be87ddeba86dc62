#!/usr/bin/env bash
# Generated inputs that once took the scheduler minutes or all memory (issue 12, "Found"):
#   chain:  one loop whose body is a chain of 10,000 dependent ops, carried around the loop
#           (RecMII's circuit test ran > 280 s); it must schedule, and the graph emit, in seconds
#           (ctest's TIMEOUT bounds it), with the exact RecMII: 10,000 times the table's latency of
#           arith.addi (4 cycles, targets/sm_90a.json). The emitter does not lower a scalar
#           chain carried by no role's tile: emit must refuse it at the loop, naming the value,
#           and write no file.
#   nested: eight nested loops, one op in the innermost (each level multiplies the outer II by
#           about 33; the reservation tables asked for terabytes): a located error naming the
#           II limit, within seconds.
# Usage: large_inputs.sh SCHED2CU OUTDIR chain|nested
set -euo pipefail
s=$1 out=$2 mode=$3
rm -rf "$out" && mkdir -p "$out"
head='module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {'
if [ "$mode" = chain ]; then
  {
    echo "$head"
    echo '  tt.func public @chain(%p: !tt.ptr<i32>, %n: i32) {'
    echo '    %c0 = arith.constant 0 : i32'
    echo '    %c1 = arith.constant 1 : i32'
    echo '    %r = scf.for %i = %c0 to %n step %c1 iter_args(%x0 = %c0) -> (i32) : i32 {'
    for k in $(seq 1 10000); do echo "      %x$k = arith.addi %x$((k - 1)), %c1 : i32"; done
    echo '      scf.yield %x10000 : i32'
    echo '    }'
    echo '    tt.store %p, %r : !tt.ptr<i32>'
    echo '    tt.return'
    echo '  }'
    echo '}'
  } >"$out/k.ttgir"
  "$s" schedule "$out/k.ttgir" -o "$out/g.json" --report >"$out/report"
  grep -E 'II 40000  MII 40000 \(ResMII 1 = .*RecMII 40000\)' "$out/report"
  # emit refuses the scalar-only loop at the loop, naming the value (it used to say only "a
  # loop-carried value has no owning role").
  if "$s" emit "$out/g.json" -o "$out/k.cu" 2>"$out/emit.err"; then
    echo "emit accepted a loop that carries only scalars" >&2
    exit 1
  fi
  grep -F 'k.ttgir:5:5: error: emit: op 2 '"'"'scf.for'"'"': the loop yields %x10000, which the schedule placed in no role' "$out/emit.err"
  [ ! -e "$out/k.cu" ]
else
  {
    echo "$head"
    echo '  tt.func public @nest(%p: !tt.ptr<i32>, %n: i32) {'
    echo '    %c0 = arith.constant 0 : i32'
    echo '    %c1 = arith.constant 1 : i32'
    for k in $(seq 1 8); do echo "    scf.for %i$k = %c0 to %n step %c1 : i32 {"; done
    echo '      %v = arith.addi %i8, %c1 : i32'
    echo '      tt.store %p, %v : !tt.ptr<i32>'
    for k in $(seq 1 8); do echo '    }'; done
    echo '    tt.return'
    echo '  }'
    echo '}'
  } >"$out/k.ttgir"
  if "$s" schedule "$out/k.ttgir" -o "$out/g.json" 2>"$out/err"; then exit 1; fi
  test ! -e "$out/g.json"
  grep -E "k.ttgir:[0-9]+:5: error: loop [0-9]+: II: the loop's minimum II .* is above the scheduler's limit of 16777216 \(--max-ii\)" "$out/err"
fi
