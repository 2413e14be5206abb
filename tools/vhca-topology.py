#!/usr/bin/env python3
"""vhca-topology - fabrics of many switches (Documentation/fabric-topology.md).

A topology file has a line per switch, per cable and per HCA port:

    # comments and blank lines are ignored
    switch spine1 4 0x525400ff00000101 root   # NAME PORTS [GUID] [root]
    switch leaf1 4 0x525400ff00000201
    cable leaf1:1 spine1:1                     # SWITCH:PORT SWITCH:PORT
    hca a leaf1:3                              # VM SWITCH:PORT

Names are [A-Za-z0-9_-]+, ports 1..32; a GUID left out is
0x525400ff00000001 plus the switch's index in the file; `root` marks the
switches opensm's ftree engine takes as roots (its root_guid_file).  Each
switch port has at most one cable or HCA.

Commands:
    vhca-topology.py fat-tree [--spines S] [--leaves L] [--hcas H]
    vhca-topology.py ring [--switches N] [--hcas H]
        print a topology file: a two-level fat tree (every leaf cabled to
        every spine, H HCA ports per leaf, named a, b, ...), or a ring of
        N switches with H HCA ports on its first switches;
    vhca-topology.py check FILE
        parse FILE, print what it holds, or what is wrong (exit 1);
    vhca-topology.py run FILE DIR [-- SWITCH OPTIONS]
        start one build/vhca-switch per switch (--embedded-sm off) until
        interrupted: the switch NAME's ports listen on DIR/NAME/portN, its
        control socket is DIR/NAME/control; the port of `hca VM` dials
        DIR/vm-VM.sock (the VM's `-netdev stream,server=on` socket);
    vhca-topology.py roots FILE
        the GUIDs of the root switches, one a line (ftree's root_guid_file);
    vhca-topology.py compare FILE IBNETDISCOVER_OUTPUT
        whether ibnetdiscover's output shows the topology of FILE.

Each cable's second switch dials the first (`--connect`), so `link N
down` on the control socket of that second switch cuts it (cut_end()).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time

SWITCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "build", "vhca-switch")
FIRST_GUID = 0x525400ff00000001
MAX_PORTS = 32                  # tools/vhca-switch.h SW_MAX_PORTS
NAME = re.compile(r"^[A-Za-z0-9_-]+$")


class TopologyError(ValueError):
    pass


class Topology:
    """switches: name -> {"ports", "guid", "root"} in file order; cables:
    [((sw, port), (sw, port))]; hcas: vm -> (sw, port)."""

    def __init__(self):
        self.switches = {}
        self.cables = []
        self.hcas = {}
        self.used = {}          # (sw, port) -> what is cabled there

    def _end(self, text, where):
        m = re.match(r"^([A-Za-z0-9_-]+):(\d+)$", text)
        if not m:
            raise TopologyError("%s: '%s' is not SWITCH:PORT" % (where, text))
        sw, port = m.group(1), int(m.group(2))
        if sw not in self.switches:
            raise TopologyError("%s: no switch '%s' (declare it first)" % (where, sw))
        if not 1 <= port <= self.switches[sw]["ports"]:
            raise TopologyError("%s: %s has no port %d" % (where, sw, port))
        if (sw, port) in self.used:
            raise TopologyError("%s: %s:%d already has %s" %
                                (where, sw, port, self.used[(sw, port)]))
        return sw, port

    def add_line(self, line, where):
        words = line.split("#", 1)[0].split()
        if not words:
            return
        kind, args = words[0], words[1:]
        if kind == "switch" and 2 <= len(args) <= 4:
            name, ports = args[0], args[1]
            flags = args[2:]
            root = "root" in flags
            flags = [f for f in flags if f != "root"]
            if not NAME.match(name) or name in self.switches:
                raise TopologyError("%s: bad or repeated switch name '%s'" % (where, name))
            if not ports.isdigit() or not 1 <= int(ports) <= MAX_PORTS:
                raise TopologyError("%s: ports must be 1..%d" % (where, MAX_PORTS))
            guid = FIRST_GUID + len(self.switches)
            if flags:
                try:
                    guid = int(flags[0], 0)
                except ValueError:
                    raise TopologyError("%s: bad GUID '%s'" % (where, flags[0]))
                if len(flags) > 1 or not 0 < guid < 1 << 64:
                    raise TopologyError("%s: switch NAME PORTS [GUID] [root]" % where)
            if guid in (s["guid"] for s in self.switches.values()):
                raise TopologyError("%s: GUID 0x%016x repeated" % (where, guid))
            self.switches[name] = {"ports": int(ports), "guid": guid, "root": root}
        elif kind == "cable" and len(args) == 2:
            a = self._end(args[0], where)
            self.used[a] = "a cable"
            try:
                b = self._end(args[1], where)
            except TopologyError:
                del self.used[a]
                raise
            if a[0] == b[0]:
                raise TopologyError("%s: a cable from %s to itself" % (where, a[0]))
            self.used[b] = "a cable"
            self.cables.append((a, b))
        elif kind == "hca" and len(args) == 2:
            vm = args[0]
            if not NAME.match(vm) or vm in self.hcas:
                raise TopologyError("%s: bad or repeated HCA name '%s'" % (where, vm))
            end = self._end(args[1], where)
            self.used[end] = "HCA " + vm
            self.hcas[vm] = end
        else:
            raise TopologyError("%s: not a switch, cable or hca line: %s" %
                                (where, line.strip()))


def parse_text(text, name="<topology>"):
    topo = Topology()
    for n, line in enumerate(text.splitlines(), 1):
        topo.add_line(line, "%s:%d" % (name, n))
    if not topo.switches:
        raise TopologyError("%s: no switch" % name)
    return topo


def parse(path):
    with open(path) as f:
        return parse_text(f.read(), path)


def hca_names(n):
    return [chr(ord("a") + i) if i < 26 else "h%d" % i for i in range(n)]


def fat_tree(spines=2, leaves=2, hcas=1):
    """A two-level fat tree: leaf i port j (1..spines) to spine j port i;
    the HCAs on the leaves' next ports, in turn."""
    if spines < 1 or leaves < 1 or hcas < 0 or leaves > MAX_PORTS or \
            spines + hcas > MAX_PORTS:
        raise TopologyError("fat tree: too many ports")
    lines = ["# two-level fat tree: %d spines, %d leaves, %d HCA port(s) a leaf"
             % (spines, leaves, hcas)]
    for s in range(spines):
        lines.append("switch spine%d %d 0x525400ff%08x root" % (s + 1, leaves, 0x100 + s + 1))
    for leaf in range(leaves):
        lines.append("switch leaf%d %d 0x525400ff%08x" % (leaf + 1, spines + hcas,
                                                           0x200 + leaf + 1))
    for leaf in range(leaves):
        for s in range(spines):
            lines.append("cable leaf%d:%d spine%d:%d" % (leaf + 1, s + 1, s + 1, leaf + 1))
    names = hca_names(leaves * hcas)
    for i, vm in enumerate(names):
        leaf, k = divmod(i, hcas)
        lines.append("hca %s leaf%d:%d" % (vm, leaf + 1, spines + k + 1))
    return "\n".join(lines) + "\n"


def ring(switches=4, hcas=2):
    """switch i port 2 to switch i+1 port 1 (the last to the first), an
    HCA on port 3 of the first `hcas` switches."""
    if switches < 2 or not 0 <= hcas <= switches:
        raise TopologyError("ring: 2 or more switches, at most one HCA each")
    lines = ["# ring of %d switches" % switches]
    for i in range(switches):
        lines.append("switch sw%d 3 0x525400ff%08x" % (i + 1, 0x300 + i + 1))
    for i in range(switches if switches > 2 else 1):
        lines.append("cable sw%d:2 sw%d:1" % (i + 1, (i + 1) % switches + 1))
    for i, vm in enumerate(hca_names(hcas)):
        lines.append("hca %s sw%d:3" % (vm, i + 1))
    return "\n".join(lines) + "\n"


def switch_argv(topo, sockdir, extra=()):
    """name -> the vhca-switch command line of each switch."""
    argv = {}
    for name, sw in topo.switches.items():
        argv[name] = [SWITCH, "--ports", str(sw["ports"]), "--dir",
                      os.path.join(sockdir, name), "--guid", "0x%016x" % sw["guid"],
                      "--name", name, "--embedded-sm", "off"] + list(extra)
    for (a, pa), (b, pb) in topo.cables:
        argv[a] += ["--isl", str(pa)]
        argv[b] += ["--isl", str(pb), "--connect",
                    "%d=%s" % (pb, os.path.join(sockdir, a, "port%d" % pa))]
    for vm, (sw, port) in topo.hcas.items():
        argv[sw] += ["--connect", "%d=%s" % (port, os.path.join(sockdir, "vm-%s.sock" % vm))]
    return argv


def start(topo, sockdir, log_dir=None, extra=(), prefix=""):
    """Start every switch, switch NAME's lines into log_dir/<prefix>NAME.log
    (no log_dir: this process's stderr); name -> Popen."""
    procs = {}
    for name, argv in switch_argv(topo, sockdir, extra).items():
        os.makedirs(os.path.join(sockdir, name), exist_ok=True)
        log = open(os.path.join(log_dir, prefix + name + ".log"), "wb") \
            if log_dir else None
        procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        if log:
            log.close()         # the switch has its own descriptor
    return procs


def stop(procs):
    for p in procs.values():
        if p.poll() is None:
            p.terminate()
    for p in procs.values():
        p.wait(timeout=10)


def cut_end(topo, end):
    """The (switch, port) whose control socket cuts the cable at end
    ("SW:PORT" at either end of it): its dialing end."""
    sw, port = end.split(":")
    for a, b in topo.cables:
        if (sw, int(port)) in (a, b):
            return b
    raise TopologyError("no cable at %s" % end)


# ---- ibnetdiscover ---------------------------------------------------------

NODE_LINE = re.compile(r'^(Switch|Ca)\s+(\d+)\s+"([SH])-([0-9a-fA-F]+)"')
PORT_LINE = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([SH])-([0-9a-fA-F]+)"\[(\d+)\]')


def parse_ibnetdiscover(text):
    """ibnetdiscover's default output: (switches {guid: ports}, cas {guid},
    links {frozenset of ((guid, port), (guid, port))})."""
    switches, cas, links = {}, set(), set()
    node = None
    for line in text.splitlines():
        m = NODE_LINE.match(line)
        if m:
            node = int(m.group(4), 16)
            if m.group(1) == "Switch":
                switches[node] = int(m.group(2))
            else:
                cas.add(node)
            continue
        m = PORT_LINE.match(line)
        if m and node is not None:
            links.add(frozenset([(node, int(m.group(1))),
                                 (int(m.group(3), 16), int(m.group(4)))]))
    return switches, cas, links


def compare(topo, text):
    """What ibnetdiscover's output differs in from topo ([] when it shows
    the same switches, switch cables, and an HCA on each hca port)."""
    switches, cas, links = parse_ibnetdiscover(text)
    wrong = []
    by_guid = {sw["guid"]: name for name, sw in topo.switches.items()}
    for name, sw in topo.switches.items():
        if sw["guid"] not in switches:
            wrong.append("switch %s (0x%016x) missing" % (name, sw["guid"]))
        elif switches[sw["guid"]] != sw["ports"]:
            wrong.append("switch %s has %d ports, not %d" %
                         (name, switches[sw["guid"]], sw["ports"]))
    for guid in switches:
        if guid not in by_guid:
            wrong.append("switch 0x%016x is not in the file" % guid)
    want = {frozenset([(topo.switches[a]["guid"], pa), (topo.switches[b]["guid"], pb)])
            for (a, pa), (b, pb) in topo.cables}
    seen = {link for link in links
            if all(g in switches for g, _ in link) and len(link) == 2}
    for link in want - seen:
        wrong.append("cable %s missing" % " - ".join(
            "%s:%d" % (by_guid[g], p) for g, p in sorted(link)))
    for link in seen - want:
        wrong.append("cable %s is not in the file" % " - ".join(
            "%s:%d" % (by_guid.get(g, "0x%016x" % g), p) for g, p in sorted(link)))
    ca_ends = {}
    for link in links:
        ends = sorted(link)
        if len(ends) != 2:
            continue
        for (g1, p1), (g2, _) in (ends, ends[::-1]):
            if g1 in switches and g2 in cas:
                ca_ends[(g1, p1)] = g2
    for vm, (sw, port) in topo.hcas.items():
        if (topo.switches[sw]["guid"], port) not in ca_ends:
            wrong.append("no HCA at %s:%d (hca %s)" % (sw, port, vm))
    hca_ports = {(topo.switches[sw]["guid"], p) for sw, p in topo.hcas.values()}
    for end in ca_ends:
        if end not in hca_ports:
            wrong.append("an HCA at %s:%d is not in the file" %
                         (by_guid.get(end[0], "0x%016x" % end[0]), end[1]))
    return wrong


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ft = sub.add_parser("fat-tree")
    ft.add_argument("--spines", type=int, default=2)
    ft.add_argument("--leaves", type=int, default=2)
    ft.add_argument("--hcas", type=int, default=1)
    rg = sub.add_parser("ring")
    rg.add_argument("--switches", type=int, default=4)
    rg.add_argument("--hcas", type=int, default=2)
    for cmd in ("check", "roots"):
        sub.add_parser(cmd).add_argument("file")
    run = sub.add_parser("run")
    run.add_argument("file")
    run.add_argument("dir")
    run.add_argument("switch_options", nargs="*")
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("file")
    cmp_.add_argument("ibnetdiscover")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "fat-tree":
            sys.stdout.write(fat_tree(args.spines, args.leaves, args.hcas))
        elif args.cmd == "ring":
            sys.stdout.write(ring(args.switches, args.hcas))
        elif args.cmd == "check":
            topo = parse(args.file)
            print("%d switches, %d cables, %d HCAs" %
                  (len(topo.switches), len(topo.cables), len(topo.hcas)))
        elif args.cmd == "roots":
            for sw in parse(args.file).switches.values():
                if sw["root"]:
                    print("0x%016x" % sw["guid"])
        elif args.cmd == "compare":
            with open(args.ibnetdiscover) as f:
                wrong = compare(parse(args.file), f.read())
            for w in wrong:
                print(w)
            return 1 if wrong else 0
        else:
            procs = start(parse(args.file), args.dir, None, args.switch_options)
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
            try:
                while all(p.poll() is None for p in procs.values()):
                    time.sleep(0.5)
            finally:
                stop(procs)
    except TopologyError as e:
        print("vhca-topology: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
