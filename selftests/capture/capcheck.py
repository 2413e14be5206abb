"""Checks of a vhca capture (Documentation/fabric-tests.md "Capture"), shared by
the encoder's host test (fabric/tests/capture_test.cpp runs it)
and `make check-capture` (selftests/capture/capture_fabric.py).

What it checks, each on its own:
- the file: pcapng, every record ERF type 21 (InfiniBand), read here with
  no library;
- each packet's ICRC (IBA 7.8.1) and VCRC (IBA 7.8.2), computed here
  independently of the writer (zlib's CRC-32, a bitwise CRC-16): Debian's
  tshark 4.0 shows both CRCs but does not check them;
- tshark's own decode: every frame dissected as erf:infiniband, with no
  malformed-packet mark and no expert warning or error.

Command line: capcheck.py FILE  (prints a summary; exits 1 on a finding).
"""
import collections
import struct
import subprocess
import sys
import zlib

ERF_TYPE_INFINIBAND = 21


def read_pcapng(path):
    """[(interface, inbound, packet bytes, wire length)] of every EPB."""
    data = open(path, "rb").read()
    out = []
    off = 0
    linktypes = []
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12 or off + blen > len(data):
            raise ValueError("pcapng block at %d: length %d" % (off, blen))
        body = data[off + 8:off + blen - 4]
        if btype == 1:
            linktypes.append(struct.unpack_from("<H", body, 0)[0])
        elif btype == 6:
            ifid, _, _, caplen, origlen = struct.unpack_from("<IIIII", body, 0)
            rec = body[20:20 + caplen]
            opts = body[20 + ((caplen + 3) & ~3):]
            inbound = None
            while len(opts) >= 4:
                code, olen = struct.unpack_from("<HH", opts, 0)
                if code == 0:
                    break
                if code == 2:
                    inbound = (struct.unpack_from("<I", opts, 4)[0] & 3) == 1
                opts = opts[4 + ((olen + 3) & ~3):]
            if linktypes[ifid] != 197:
                raise ValueError("interface %d: link type %d, not ERF" %
                                 (ifid, linktypes[ifid]))
            if rec[8] & 0x7f != ERF_TYPE_INFINIBAND:
                raise ValueError("ERF record type %d" % rec[8])
            wlen = struct.unpack_from(">H", rec, 14)[0]
            out.append((ifid, inbound, rec[16:], wlen))
        off += blen
    return out


def crc16_vcrc(data):
    """IBA 7.8.2: polynomial 0x100B, bit-reflected, seed and result
    inverted (bitwise, not the writer's table)."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD008 if crc & 1 else crc >> 1
    return crc ^ 0xFFFF


def icrc(pkt):
    """IBA 7.8.1 over the packet up to its ICRC, variant fields as ones."""
    lnh = pkt[1] & 3
    hdrs = 8 + 40 + 12 if lnh == 3 else 8 + 12
    inv = bytearray(pkt[:hdrs])
    inv[0:8] = b"\xff" * 8
    if lnh == 3:
        inv[8] |= 0x0F              # traffic class, low half
        inv[9:12] = b"\xff" * 3     # traffic class, flow label
        inv[15] = 0xFF              # hop limit
    inv[hdrs - 12 + 4] = 0xFF       # BTH resv8a
    return zlib.crc32(bytes(inv) + pkt[hdrs:len(pkt) - 6]) & 0xFFFFFFFF


def check_crcs(packets):
    """Findings about lengths and CRCs of whole (not snapped) packets."""
    bad = []
    for n, (_, _, pkt, wlen) in enumerate(packets, 1):
        if len(pkt) < wlen:
            continue                # snapped: no CRCs to check
        words = struct.unpack_from(">H", pkt, 4)[0] & 0x7FF
        if words * 4 + 2 != len(pkt):
            bad.append("frame %d: LRH PktLen %d words for %d bytes" %
                       (n, words, len(pkt)))
            continue
        got_i = struct.unpack_from("<I", pkt, len(pkt) - 6)[0]
        got_v = struct.unpack_from("<H", pkt, len(pkt) - 2)[0]
        if got_i != icrc(pkt):
            bad.append("frame %d: ICRC %08x, computed %08x" %
                       (n, got_i, icrc(pkt)))
        if got_v != crc16_vcrc(pkt[:-2]):
            bad.append("frame %d: VCRC %04x, computed %04x" %
                       (n, got_v, crc16_vcrc(pkt[:-2])))
    return bad


def tshark_fields(path, fields, display_filter=None):
    """tshark's value of each field for each frame: a list of dicts."""
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=,"]
    if display_filter:
        cmd += ["-Y", display_filter]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True,
                         text=True).stdout
    rows = []
    for line in out.splitlines():
        vals = line.split("\t")
        rows.append(dict(zip(fields, vals + [""] * (len(fields) - len(vals)))))
    return rows


def check_decodes(path):
    """Findings of tshark's own: frames not erf:infiniband, malformed
    marks, expert warnings or errors."""
    bad = []
    for r in tshark_fields(path, ["frame.number", "frame.protocols",
                                  "_ws.malformed", "_ws.expert.severity",
                                  "_ws.expert.message"]):
        if not r["frame.protocols"].startswith("erf:infiniband"):
            bad.append("frame %s: protocols %s" %
                       (r["frame.number"], r["frame.protocols"]))
        if r["_ws.malformed"]:
            bad.append("frame %s: malformed" % r["frame.number"])
        # severities: 2097152 note, 4194304 warning, 8388608 error
        sev = [int(s) for s in r["_ws.expert.severity"].split(",") if s]
        if any(s >= 4194304 for s in sev):
            bad.append("frame %s: expert %s" %
                       (r["frame.number"], r["_ws.expert.message"]))
    return bad


def check_file(path):
    """All findings about a capture file, and its packets."""
    packets = read_pcapng(path)
    return check_crcs(packets) + check_decodes(path), packets


def opcode_counts(path):
    return collections.Counter(
        r["infiniband.bth.opcode"]
        for r in tshark_fields(path, ["infiniband.bth.opcode"]))


def main():
    findings, packets = check_file(sys.argv[1])
    for f in findings[:50]:
        print(f)
    print("%s: %d packets, %d findings; opcodes %s" %
          (sys.argv[1], len(packets), len(findings),
           dict(opcode_counts(sys.argv[1]))))
    return 1 if findings or not packets else 0


if __name__ == "__main__":
    sys.exit(main())
