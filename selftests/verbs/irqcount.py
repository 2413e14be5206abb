"""Interrupt counts of vhca's MSI-X vectors, read from a guest's
/proc/interrupts and /proc/irq/N/spurious: the middleware soak's guard
against an interrupt storm (issue 24, finding 3).

The driver names each vector's handler "vhca-eq<N>@pci:<BDF>"
(driver/shim/irq.c), so the vectors of every vhca device are found by
name.  A storm in which the handler consumes nothing shows in the
kernel's spurious-interrupt accounting (the handler answers IRQ_NONE;
kernel/irq/spurious.c counts it in "unhandled", which restarts at 1 when
the previous one is more than 100 ms old, and reports "nobody cared" at
99,900 of 100,000); a storm in which every interrupt carries an event (a
CQ re-armed and firing with nobody polling it, a page fault that is never
resolved) shows only as a count out of proportion to the work.  The soak
runs the same work every round, so round 1's count is the measure of the
next rounds': count-only checks, no time in them.
"""
import re

VHCA_VECTOR = re.compile(r"\bvhca-eq(\d+)@pci:(\S+)")
# A round may take this many times round 1's interrupts, plus SLACK, before
# it is a storm: the work is the same, but the interrupts of UCX's
# progress thread (its CQ wake-ups) follow how long the round takes.
STORM_FACTOR = 10
STORM_SLACK = 20000
# A vector's "unhandled" may reach this many: more are interrupts with
# nothing to consume in a row, each within 100 ms of the last.  With a
# correct driver there is none (every interrupt follows an event,
# vhca_hw.h "Event queues").
UNHANDLED_MAX = 100


def _vhca_lines(text):
    """(name "<BDF> eq<N>", Linux IRQ number, per-CPU counts) of each vhca
    vector in /proc/interrupts."""
    lines = text.splitlines()
    if not lines:
        return
    ncpu = len(lines[0].split())  # the header: CPU0 CPU1 ...
    for line in lines[1:]:
        fields = line.split()
        match = VHCA_VECTOR.search(line)
        if not match or not fields or not fields[0].endswith(":"):
            continue
        per_cpu = fields[1:1 + ncpu]
        if not fields[0][:-1].isdigit() or len(per_cpu) != ncpu or \
                not all(f.isdigit() for f in per_cpu):
            continue
        name = "%s eq%s" % (match.group(2), match.group(1))
        yield name, int(fields[0][:-1]), [int(f) for f in per_cpu]


def vhca_irq_counts(text):
    """{"<BDF> eq<N>": interrupts summed over the CPUs} of /proc/interrupts."""
    return {name: sum(counts) for name, _, counts in _vhca_lines(text)}


def vhca_irq_numbers(text):
    """{"<BDF> eq<N>": Linux IRQ number} of /proc/interrupts."""
    return {name: irq for name, irq, _ in _vhca_lines(text)}


def spurious_script(numbers):
    """A shell command printing /proc/irq/N/spurious of each IRQ, each
    block after an "irq N" line (parse_spurious reads it)."""
    return "; ".join("echo irq %d; cat /proc/irq/%d/spurious" % (n, n)
                     for n in sorted(numbers.values()))


def parse_spurious(text, numbers):
    """{"<BDF> eq<N>": its "unhandled" count} from spurious_script's output."""
    names = {irq: name for name, irq in numbers.items()}
    unhandled, irq = {}, None
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "irq" and fields[1].isdigit():
            irq = int(fields[1])
        elif len(fields) >= 2 and fields[0] == "unhandled" and irq in names:
            unhandled[names[irq]] = int(fields[1])
    return unhandled


def irq_delta(before, after):
    """Interrupts per vector between two vhca_irq_counts (a vector that
    appeared in between counts from 0)."""
    return {name: count - before.get(name, 0) for name, count in after.items()}


def storm_limit(baseline_total):
    """The most interrupts a round may take, given round 1's."""
    return STORM_FACTOR * baseline_total + STORM_SLACK
