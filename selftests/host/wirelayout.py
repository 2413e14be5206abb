"""The fabric wire's layouts and constants as uapi/vhca_hw_wire.h defines
them, and the MADs frames carry as fabric/vhca-mad.h does, read from
build/vhca-wire-layout (tools/vhca-wire-layout.c, built beside the switch
by scripts/build-switch.sh): offsets, sizes and byte order are the
compiler's and the header's, so the tests never restate a struct by hand.

    HDR = layout("vhca_wire_hdr")
    buf = HDR.pack(kind=C["VHCA_WIRE_DATAGRAM"], slid=1)   # unnamed fields 0
    HDR.unpack(buf)["slid"]
    SMP = layout("vhca_smp")                               # big-endian
    SMP.pack(method=C["VHCA_MGMT_METHOD_GET"], data=b"...")
"""
import json
import os
import struct
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "build", "vhca-wire-layout")

# Integer fields by size; anything else is a byte array.  The wire is
# little-endian (uapi/vhca_hw_wire.h), MADs big-endian (IBA 13.4.2).
_INT_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}
_ENDIAN = {"little": "<", "big": ">"}


def _dump():
    if not os.path.exists(TOOL):
        subprocess.run([os.path.join(REPO, "scripts", "build-switch.sh")], check=True)
    return json.loads(subprocess.run([TOOL], check=True, capture_output=True,
                                     text=True).stdout)


_DUMP = _dump()
C = _DUMP["constants"]


class Layout:
    """One struct: pack() from named fields, unpack() into a dict."""

    def __init__(self, name, desc):
        self.name = name
        self.names = [f[0] for f in desc["fields"]]
        self.offsets = {f[0]: f[1] for f in desc["fields"]}
        self._arrays = {f[0] for f in desc["fields"] if f[2] not in _INT_CODES}
        self._struct = struct.Struct(_ENDIAN[desc["endian"]] + "".join(
            _INT_CODES.get(size, "%ds" % size) for _, _, size in desc["fields"]))
        self.size = self._struct.size
        assert self.size == desc["size"], (name, self.size, desc["size"])

    def pack(self, **fields):
        unknown = set(fields) - set(self.names)
        assert not unknown, "%s has no field %s" % (self.name, sorted(unknown))
        return self._struct.pack(*(fields.get(n, b"" if n in self._arrays else 0)
                                   for n in self.names))

    def unpack(self, buf):
        return dict(zip(self.names, self._struct.unpack_from(buf)))


def layout(name):
    return Layout(name, _DUMP["structs"][name])
