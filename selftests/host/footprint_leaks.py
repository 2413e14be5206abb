"""selftests/verbs/footprint.py on `rdma res`, /proc/vmstat and
/proc/meminfo texts (no VM): the middleware soak's leak guard reads the
right counts and names what a round left behind."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "verbs"))
from footprint import leaks, parse_footprint  # noqa: E402

# FOOTPRINT_SCRIPT's output in a guest with two vhca devices (kernel 6.1,
# iproute2 6.1): the MAD layer's QP0/QP1 and their CQs and PDs.
BEFORE = """\
0: vhca0: pd 2 cq 4 qp 4 cm_id 0 mr 0 ctx 0 srq 0
1: vhca1: pd 1 cq 2 qp 2 cm_id 0 mr 0 ctx 0 srq 0
@@vmstat
nr_foll_pin_acquired 5120
nr_foll_pin_released 5120
@@meminfo
MemAvailable:    1804412 kB
SUnreclaim:        31200 kB
"""


def test_counts_parsed():
    fp = parse_footprint(BEFORE)
    assert fp["res"] == {
        "vhca0": {"pd": 2, "cq": 4, "qp": 4, "cm_id": 0, "mr": 0, "ctx": 0, "srq": 0},
        "vhca1": {"pd": 1, "cq": 2, "qp": 2, "cm_id": 0, "mr": 0, "ctx": 0, "srq": 0},
    }
    assert fp["pinned"] == 0
    assert fp["mem"] == {"MemAvailable": 1804412, "SUnreclaim": 31200}


def test_nothing_left_is_no_leak():
    fp = parse_footprint(BEFORE)
    assert leaks(fp, parse_footprint(BEFORE)) == []


def test_objects_and_pins_left_are_named():
    after = (BEFORE.replace("vhca1: pd 1 cq 2 qp 2", "vhca1: pd 2 cq 3 qp 2")
             .replace("srq 0\n1:", "srq 1\n1:")
             .replace("released 5120", "released 4096"))
    assert leaks(parse_footprint(BEFORE), parse_footprint(after)) == [
        "vhca0: 1 srq left (0 before the first round)",
        "vhca1: 3 cq left (2 before the first round)",
        "vhca1: 2 pd left (1 before the first round)",
        "1024 pages still pinned (FOLL_PIN), 0 before the first round",
    ]


def test_a_device_that_appeared_counts_from_zero():
    after = BEFORE.replace("@@vmstat", "2: rxe0: pd 1 cq 0 qp 0 cm_id 0 mr 0 ctx 0 srq 0\n@@vmstat")
    assert leaks(parse_footprint(BEFORE), parse_footprint(after)) == [
        "rxe0: 1 pd left (0 before the first round)"]
