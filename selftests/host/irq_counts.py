"""selftests/verbs/irqcount.py on /proc/interrupts texts (no VM): the
middleware soak's interrupt-storm guard reads the right vectors."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "verbs"))
from irqcount import (irq_delta, parse_spurious, spurious_script, storm_limit,  # noqa: E402
                      vhca_irq_counts, vhca_irq_numbers)

# As a 2-vCPU guest with two vhca devices shows it (kernel 6.12).
PROC_INTERRUPTS = """\
           CPU0       CPU1
  0:         44          0   IO-APIC   2-edge      timer
 24:        812         17  PCI-MSIX-0000:00:04.0    0-edge      vhca-eq0@pci:0000:00:04.0
 25:          3       1200  PCI-MSIX-0000:00:04.0    1-edge      vhca-eq1@pci:0000:00:04.0
 26:          0          0  PCI-MSIX-0000:00:05.0    0-edge      vhca-eq0@pci:0000:00:05.0
 27:          9          0  PCI-MSI-0000:00:02.0   0-edge      virtio0-config
NMI:          0          0   Non-maskable interrupts
LOC:      51234      49876   Local timer interrupts
ERR:          0
"""


def test_only_vhca_vectors_summed_over_cpus():
    assert vhca_irq_counts(PROC_INTERRUPTS) == {
        "0000:00:04.0 eq0": 829,
        "0000:00:04.0 eq1": 1203,
        "0000:00:05.0 eq0": 0,
    }


def test_empty_text_and_no_vhca():
    assert vhca_irq_counts("") == {}
    assert vhca_irq_counts("           CPU0\n  0:  5  IO-APIC 2-edge timer\n") == {}


def test_delta_counts_a_new_vector_from_zero():
    before = {"0000:00:04.0 eq0": 10}
    after = {"0000:00:04.0 eq0": 25, "0000:00:04.0 eq1": 4}
    assert irq_delta(before, after) == {"0000:00:04.0 eq0": 15, "0000:00:04.0 eq1": 4}


def test_storm_limit_grows_with_the_baseline():
    assert storm_limit(0) > 0
    assert storm_limit(1000) > storm_limit(100) > 1000


def test_irq_numbers_and_their_spurious_files():
    numbers = vhca_irq_numbers(PROC_INTERRUPTS)
    assert numbers == {"0000:00:04.0 eq0": 24, "0000:00:04.0 eq1": 25,
                       "0000:00:05.0 eq0": 26}
    assert spurious_script(numbers) == ("echo irq 24; cat /proc/irq/24/spurious; "
                                        "echo irq 25; cat /proc/irq/25/spurious; "
                                        "echo irq 26; cat /proc/irq/26/spurious")
    # As kernel/irq/proc.c prints them.
    output = ("irq 24\ncount 829\nunhandled 0\nlast_unhandled 0 ms\n"
              "irq 25\ncount 1203\nunhandled 7\nlast_unhandled 4294 ms\n"
              "irq 26\ncount 0\nunhandled 0\nlast_unhandled 0 ms\n")
    assert parse_spurious(output, numbers) == {
        "0000:00:04.0 eq0": 0, "0000:00:04.0 eq1": 7, "0000:00:05.0 eq0": 0}
