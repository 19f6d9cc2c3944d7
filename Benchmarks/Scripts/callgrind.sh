#!/bin/bash
# Counts, with valgrind's callgrind, the instructions one operation of a scenario executes, and
# lists the functions that execute them. Instruction counts do not depend on the machine's load,
# so two builds can be compared even on a busy machine.
#
#     Benchmarks/Scripts/callgrind.sh SCENARIO [IMPLEMENTATION] [ITERATIONS]
#
# SCENARIO is any serial scenario (not `contended`); IMPLEMENTATION is dirk (default),
# handwritten or swinject. SCRATCH names the build folder (default /tmp/scratch-bench).
set -euo pipefail

scenario=${1:?usage: callgrind.sh SCENARIO [IMPLEMENTATION] [ITERATIONS]}
implementation=${2:-dirk}
iterations=${3:-20000}
package=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH:-/tmp/scratch-bench}
case $scenario in
contended) echo "callgrind.sh: contended runs on other threads; profile single instead" >&2; exit 2 ;;
scale1000) operations_per_iteration=8 ;;
*) operations_per_iteration=1 ;;
esac

# DWARF 4 for the C target: this valgrind cannot read the default DWARF 5 of C objects.
swift build -c release --package-path "$package" --scratch-path "$scratch" -Xcc -gdwarf-4 >&2
profile=$(mktemp /tmp/callgrind-"$scenario"-"$implementation".XXXXXX)
# One round: the loop runs for warm-up, the round and the allocation count, and only inside
# runTimedLoop are instructions counted.
valgrind --tool=callgrind --callgrind-out-file="$profile" \
    --toggle-collect='$s14DirkBenchmarks12runTimedLoop*' \
    "$scratch/release/DirkBenchmarks" --only "$scenario" --impl "$implementation" \
    --rounds 1 --iterations "$iterations" >/dev/null 2>&1

total=$(callgrind_annotate "$profile" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
operations=$((iterations * 3 * operations_per_iteration))
echo "$scenario, $implementation: $total instructions in $operations operations," \
    "$((total / operations)) per operation (profile: $profile)"
callgrind_annotate "$profile" 2>/dev/null | swift demangle --simplified | sed -n '/file:function/,/^$/p' | head -22
