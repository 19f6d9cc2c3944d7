#!/bin/bash
# Counts, with valgrind's callgrind, the instructions one operation of a scenario executes, and
# lists the functions that execute them; then the atomic read-modify-writes among them. Neither
# count depends on the machine's load, so two builds can be compared even on a busy machine.
#
#     Benchmarks/Scripts/callgrind.sh SCENARIO [IMPLEMENTATION] [ITERATIONS]
#
# SCENARIO is any single-threaded scenario (not `contended` or the async ones); IMPLEMENTATION is
# dirk (default), handwritten or swinject; ITERATIONS defaults to 20,000, fewer for the scenarios
# whose operation is long.
# SCRATCH names the build folder (default /tmp/scratch-bench).
set -euo pipefail

scenario=${1:?usage: callgrind.sh SCENARIO [IMPLEMENTATION] [ITERATIONS]}
implementation=${2:-dirk}
case $scenario in
cold1000) default_iterations=20 ;;
deep100 | parents10) default_iterations=2000 ;;
*) default_iterations=20000 ;;
esac
iterations=${3:-$default_iterations}
package=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH:-/tmp/scratch-bench}
case $scenario in
contended | async_single | async_transient)
    echo "callgrind.sh: $scenario runs on other threads; profile the single-threaded scenario instead" >&2
    exit 2
    ;;
scale1000) operations_per_iteration=8 ;;
*) operations_per_iteration=1 ;;
esac

# DWARF 4 for the C targets: this valgrind cannot read the default DWARF 5 of C objects.
swift build -c release --package-path "$package" --scratch-path "$scratch" --product DirkBenchmarks \
    -Xcc -gdwarf-4 >&2
profile=$(mktemp /tmp/callgrind-"$scenario"-"$implementation".XXXXXX)
# One round, no allocation pass: the loop runs for warm-up and for the round, and only inside
# runTimedLoop are instructions counted.
valgrind --tool=callgrind --callgrind-out-file="$profile" \
    --toggle-collect='$s18DirkBenchmarkSuite12runTimedLoop*' \
    --dump-instr=yes --compress-pos=no --compress-strings=no \
    "$scratch/release/DirkBenchmarks" --only "$scenario" --impl "$implementation" \
    --rounds 1 --iterations "$iterations" --no-allocations >/dev/null 2>&1

total=$(callgrind_annotate "$profile" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
if [ -z "$total" ] || [ "$total" = 0 ]; then
    echo "callgrind.sh: nothing ran; does $scenario have the implementation $implementation?" >&2
    exit 1
fi
operations=$((iterations * 2 * operations_per_iteration))
echo "$scenario, $implementation: $total instructions in $operations operations," \
    "$((total / operations)) per operation (profile: $profile)"
callgrind_annotate "$profile" 2>/dev/null | swift demangle --simplified | sed -n '/file:function/,/^$/p' | head -22 || true
# Atomic read-modify-writes (retains, releases, lock acquisitions), which cost more than the
# instructions around them; x86-64 only.
if [ "$(uname -m)" = x86_64 ]; then
    python3 "$(dirname "$0")/count-atomics.py" "$profile" "$operations"
fi
