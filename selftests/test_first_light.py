"""First light: two vhca devices come up in a guest under Debian's kernel.

The fabric's embedded subnet manager must bring every port to ACTIVE with a
LID; the driver must survive unload/reload cycles; a link taken down from
the QEMU monitor must show in the guest and come back.  The tests share one
VM (conftest.vm) and run in file order.
"""
import json
import re
import socket

import vmlib
from conftest import DEVICES

EXPECTED_PORTS = sum(d["ports"] for d in DEVICES.values())
ACTIVE = "4: ACTIVE"
DOWN = "1: DOWN"

# One line per port: device, port, node GUID, LID, SM LID, state ("4: ACTIVE").
# One process for every port's attributes: on the debug kernel (KASAN,
# lockdep, SLUB debugging under TCG) each exec costs about a second, and a
# shell loop of cats took 16 s a call.  "path:value" lines.
PORTS_CMD = ("grep -Hs . /sys/class/infiniband/*/node_guid "
             "/sys/class/infiniband/*/ports/*/lid /sys/class/infiniband/*/ports/*/sm_lid "
             "/sys/class/infiniband/*/ports/*/state")
SYSFS_ATTR = re.compile(r"^/sys/class/infiniband/([^/]+)/(?:ports/(\d+)/)?(\w+):(.*)$")


def sysfs_guid(value):
    """A node GUID as sysfs prints it: 5254:0000:0000:0100."""
    text = "%016x" % value
    return ":".join(text[i:i + 4] for i in range(0, 16, 4))


def parse_ports(text):
    """PORTS_CMD's lines as [{dev, port, guid, lid, sm_lid, state}], one
    per port that has a state."""
    guids, attrs = {}, {}
    for line in text.splitlines():
        m = SYSFS_ATTR.match(line.strip())
        if not m:
            continue
        dev, port, name, value = m.groups()
        if port is None:
            guids[dev] = value.strip()
        else:
            attrs.setdefault((dev, int(port)), {})[name] = value.strip()
    ports = []
    for (dev, port), a in sorted(attrs.items()):
        if "state" not in a:
            continue
        ports.append({"dev": dev, "port": port, "guid": guids.get(dev),
                      "lid": int(a.get("lid", "0"), 16),
                      "sm_lid": int(a.get("sm_lid", "0"), 16), "state": a["state"]})
    return ports


def read_ports(vm):
    return parse_ports(vm.run(PORTS_CMD, check=True)[1])


def all_active(ports):
    return (len(ports) == EXPECTED_PORTS and
            all(p["state"] == ACTIVE and p["lid"] != 0 for p in ports))


def wait_all_active(vm, timeout=60):
    out = vm.wait_until(PORTS_CMD, lambda text: all_active(parse_ports(text)), timeout)
    return parse_ports(out)


def find_port(ports, node_guid, port_num):
    for p in ports:
        if p["guid"] == sysfs_guid(node_guid) and p["port"] == port_num:
            return p
    raise AssertionError("no port %d with node GUID %s in %r"
                         % (port_num, sysfs_guid(node_guid), ports))


def assert_dmesg_clean(vm):
    bad = vmlib.bad_dmesg_lines(vm.dmesg())
    assert not bad, "kernel log has warnings/oopses:\n" + "\n".join(bad)


def test_every_port_active(vm):
    try:
        ports = wait_all_active(vm)
    except vmlib.VMTimeout as err:
        raise AssertionError("ports not all ACTIVE (expected %d):\n%s"
                             % (EXPECTED_PORTS, err.output)) from None
    assert len(ports) == EXPECTED_PORTS
    assert all(p["state"] == ACTIVE for p in ports)


def test_node_guids_as_configured(vm):
    ports = read_ports(vm)
    for name, dev in DEVICES.items():
        guid = sysfs_guid(dev["node_guid"])
        numbers = sorted(p["port"] for p in ports if p["guid"] == guid)
        assert numbers == list(range(1, dev["ports"] + 1)), \
            "%s (node GUID %s): ports %r" % (name, guid, numbers)


def test_lids_distinct_and_nonzero(vm):
    lids = [p["lid"] for p in read_ports(vm)]
    assert len(lids) == EXPECTED_PORTS
    assert all(lid != 0 for lid in lids), lids
    assert len(set(lids)) == len(lids), lids


def test_sm_lid_set(vm):
    ports = read_ports(vm)
    assert ports
    for p in ports:
        assert p["sm_lid"] != 0, p
        assert p["sm_lid"] != p["lid"], p


def test_rdma_link_show(vm):
    out = vm.run("rdma link show", check=True)[1]
    for p in read_ports(vm):
        # IB links: "link vhca0/1 subnet_prefix ... lid 2 sm_lid 1 lmc 0 state ACTIVE ..."
        pattern = r"^link %s/%d .*\blid %d .*\bstate ACTIVE\b" % (
            re.escape(p["dev"]), p["port"], p["lid"])
        assert re.search(pattern, out, re.M), "%s/%d not ACTIVE in:\n%s" % (
            p["dev"], p["port"], out)


def test_ibstat(vm):
    out = vm.run("ibstat", check=True)[1]
    states = re.findall(r"^\s*State: (\S+)", out, re.M)
    assert states == ["Active"] * EXPECTED_PORTS, out
    lids = re.findall(r"^\s*Base lid: (\d+)", out, re.M)
    assert len(lids) == EXPECTED_PORTS and "0" not in lids, out
    # sysfs hca_type and hw_rev of the driver; hw_rev is QUERY_DEVICE's
    # hw_version, the PCI revision (VHCA_PCI_REVISION).
    assert re.findall(r"^\s*CA type: (\S+)", out, re.M) == ["vhca"] * len(DEVICES), out
    assert re.findall(r"^\s*Hardware version: (\S+)", out, re.M) == ["0x1"] * len(DEVICES), out


# rmmod/insmod cycles: 10, or 3 on the debug kernel (a cycle takes 14 s
# there; kmemleak and lockdep see every cycle's allocations and locks).
RELOAD_CYCLES = 3 if vmlib.KERNEL_CHOICE == "debug" else 10


def test_reload_cycles(vm, module_path):
    for cycle in range(RELOAD_CYCLES):
        vm.run("rmmod vhca", timeout=60, check=True)
        rc, out = vm.run("ls /sys/class/infiniband 2>/dev/null | wc -l", check=True)
        assert out.strip() == "0", "devices left after rmmod (cycle %d)" % cycle
        vm.run("insmod %s" % module_path, timeout=60, check=True)
    ports = wait_all_active(vm)
    assert len(ports) == EXPECTED_PORTS
    assert_dmesg_clean(vm)


def test_port_down_and_up_from_qmp(vm):
    guid = DEVICES["vhca0"]["node_guid"]
    before = wait_all_active(vm)
    lid_before = find_port(before, guid, 1)["lid"]

    vm.qmp("qom-set", path="vhca0", property="port1-link", value=False)
    try:
        ports = parse_ports(vm.wait_until(
            PORTS_CMD, lambda text: find_port(parse_ports(text), guid, 1)["state"] == DOWN,
            timeout=30))
    finally:
        vm.qmp("qom-set", path="vhca0", property="port1-link", value=True)
    assert find_port(ports, guid, 2)["state"] == ACTIVE, "port 2 went down with port 1"
    assert vm.qmp("qom-get", path="vhca0", property="port1-link") is True

    after = wait_all_active(vm)
    # The SM hands a port the same LID for the life of the QEMU process.
    assert find_port(after, guid, 1)["lid"] == lid_before


def test_debug_qmp_socket(vm):
    """A person's QMP client gets answers while the harness holds its own
    connection (vmlib.VM.debug_qmp_path): on the harness's socket, QEMU
    would leave it without greeting or answer."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(10)
        sock.connect(vm.debug_qmp_path)
        lines = sock.makefile("rwb")
        assert "QMP" in json.loads(lines.readline())
        for cmd, args in (("qmp_capabilities", {}),
                          ("qom-get", {"path": "vhca0", "property": "port1-link"})):
            lines.write(json.dumps({"execute": cmd, "arguments": args}).encode() + b"\n")
            lines.flush()
            answer = json.loads(lines.readline())
            while "event" in answer:
                answer = json.loads(lines.readline())
        assert answer == {"return": True}, answer
    assert vm.qmp("query-status")["running"] is True


def test_dmesg_clean(vm):
    assert_dmesg_clean(vm)
