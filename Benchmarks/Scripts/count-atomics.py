#!/usr/bin/env python3
"""Counts the atomic read-modify-write instructions that a callgrind profile executed.

    count-atomics.py PROFILE OPERATIONS

PROFILE is a callgrind output written with --dump-instr=yes --compress-pos=no
--compress-strings=no (as callgrind.sh writes it); OPERATIONS is how many operations it covers.
Prints the count per operation, and the functions that executed them. An instruction is an atomic
read-modify-write if it carries a `lock` prefix or is an `xchg` with memory (x86-64 only): every
retain and release of a Swift object, every compare-and-exchange of a lock, every sequentially
consistent store.
"""
import collections
import re
import subprocess
import sys


def executed_instructions(profile):
    """(object, function, address) -> times executed."""
    counts = collections.defaultdict(int)
    obj = function = None
    after_call = False
    with open(profile, errors="replace") as lines:
        for line in lines:
            if line.startswith("ob="):
                obj = line[3:].strip()
            elif line.startswith("fn="):
                function = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True  # the next line is the call's inclusive cost, not an instruction's
            elif line.startswith("0x"):
                if after_call:
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) >= 3:
                    counts[(obj, function, int(fields[0], 16))] += int(fields[-1])
    return counts


def atomic_addresses(obj):
    """The addresses, as the object file numbers them, of its atomic instructions."""
    disassembly = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True).stdout
    addresses = set()
    for line in disassembly.splitlines():
        match = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if match and (match.group(2).startswith("lock") or (match.group(2).startswith("xchg") and "(" in match.group(2))):
            addresses.add(int(match.group(1), 16))
    return addresses


def symbols(obj):
    listing = subprocess.run(["nm", "-D", obj] if ".so" in obj else ["nm", obj], capture_output=True, text=True).stdout
    table = {}
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            table.setdefault(fields[2], int(fields[0], 16))
    return table


def main():
    profile, operations = sys.argv[1], int(sys.argv[2])
    counts = executed_instructions(profile)
    per_function = collections.Counter()
    for obj in {key[0] for key in counts}:
        if not obj or not obj.startswith("/"):
            continue
        atomic = atomic_addresses(obj)
        if not atomic:
            continue
        # Where the object was loaded: the most common difference between a function's lowest
        # executed address and its symbol's address.
        named = symbols(obj)
        lowest = {}
        for (o, function, address) in counts:
            if o == obj:
                lowest[function] = min(lowest.get(function, address), address)
        offsets = collections.Counter(address - named[f] for f, address in lowest.items() if f in named)
        if not offsets:
            continue
        base = offsets.most_common(1)[0][0]
        for (o, function, address), times in counts.items():
            if o == obj and address - base in atomic:
                per_function[function] += times
    total = sum(per_function.values())
    print(f"atomic read-modify-writes: {total / operations:.2f} per operation")
    for function, times in per_function.most_common(12):
        if times / operations >= 0.01:
            name = subprocess.run(["swift", "demangle", "--simplified", "--compact", function.lstrip("$")], capture_output=True, text=True).stdout.strip()
            print(f"  {times / operations:6.2f}  {name.lstrip('$')[:140]}")


if __name__ == "__main__":
    main()
