#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seeds of QEMU's generic-fuzz-vhca (scripts/run-qemu-fuzz.sh): what a
driver does first, in generic-fuzz's input format, so that libFuzzer starts
past the queue set-up and mutates commands instead of looking for it.

generic-fuzz (QEMU's tests/qtest/fuzz/generic_fuzz.c) reads commands split
by the separator b"FUZZ"; a command's first byte % 10 is the operation:
3 write (struct {u8 size % 4: 1/2/4/8 bytes; u8 region; u16 pad; u32
offset; u64 value}, little-endian; region is the index, modulo their
number, of the fuzzed MemoryRegions in address order: the PCI enumeration
maps BAR 0, 2 and 4 upwards, so 0 is BAR 0's registers, 1 and 2 the MSI-X
table and PBA, 3 the doorbell pages), 7 add a DMA pattern (u8 index, u8
stride, then the bytes every device read of guest memory is filled with),
9 a clock step.  Register offsets are uapi/vhca_hw.h's.

Run: fuzz/generic_fuzz_vhca_seeds.py  (writes fuzz/corpus/generic-fuzz-vhca/)
"""
import os
import struct

SEP = b"FUZZ"
OP_WRITE, OP_ADD_DMA_PATTERN, OP_CLOCK_STEP = 3, 7, 9
REGS, DOORBELLS = 0, 3
LONG = 2
# uapi/vhca_hw.h
REG_CONTROL, CMDQ_BASE_LO, CMDQ_LOG_SIZE = 0x010, 0x020, 0x028
EQ0_BASE_LO, EQ0_LOG_SIZE = 0x030, 0x038
CONTROL_ENABLE = 1
DB_CMDQ_PI = 0x000
CMD_QUERY_DEVICE, CMD_QUERY_PORT, CMD_ALLOC_PD = 0x0001, 0x0002, 0x0020
# Guest-physical addresses in the fuzzer's 512 MiB of RAM, 4 KiB aligned.
CMDQ, EQ0, OUT = 0x100000, 0x200000, 0x300000


def write32(region, offset, value):
    return bytes([OP_WRITE]) + struct.pack("<BBHIQ", LONG, region, 0, offset, value)


def dma_pattern(data):
    return bytes([OP_ADD_DMA_PATTERN, 0, 0]) + data


def command(opcode, out_len=0, out_addr=0, inline=b""):
    """struct vhca_cmd: opcode, flags, token, in_addr, in_len, out_len,
    out_addr, 32 inline bytes."""
    return struct.pack("<HHIQIIQ", opcode, 0, 1, 0, 0, out_len, out_addr) + \
        inline.ljust(32, b"\0")


def enable_and_run(cmd):
    """Command queue of 4 entries, EQ 0 of 16, ENABLE, every command entry
    read by DMA is `cmd`, producer index 1, then the main loop runs."""
    parts = [
        write32(REGS, CMDQ_BASE_LO, CMDQ),
        write32(REGS, CMDQ_LOG_SIZE, 2),
        write32(REGS, EQ0_BASE_LO, EQ0),
        write32(REGS, EQ0_LOG_SIZE, 4),
        write32(REGS, REG_CONTROL, CONTROL_ENABLE),
        dma_pattern(cmd),
        write32(DOORBELLS, DB_CMDQ_PI, 1),
        bytes([OP_CLOCK_STEP]),
    ]
    # A separator inside an operation's bytes would split it.
    assert not any(SEP in p for p in parts)
    return SEP.join(parts)


SEEDS = {
    "alloc-pd": enable_and_run(command(CMD_ALLOC_PD)),
    "query-device": enable_and_run(command(CMD_QUERY_DEVICE, 4096, OUT)),
    "query-port-1": enable_and_run(command(CMD_QUERY_PORT, 4096, OUT, b"\x01")),
}


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "corpus", "generic-fuzz-vhca")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
