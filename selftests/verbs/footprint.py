"""What a guest holds once every process of a round has exited: the
middleware soak's guard against leaks (issue 24, finding 3: a soft lockup
that needed "the longer history", which a leak of pinned memory or of
device objects would give).

Read after each round, with no RDMA process left:
- `rdma res` (iproute2): the objects of every RDMA device (pd, cq, qp,
  cm_id, mr, ctx, srq).  A process's objects go when its file is closed
  (ib_uverbs' cleanup), so after the round the counts are the kernel's
  own, the same as before the first round;
- /proc/vmstat nr_foll_pin_acquired - nr_foll_pin_released: pages still
  pinned with FOLL_PIN (ib_umem_get pins an MR's and a user queue's pages
  so; mm/gup.c counts both sides), which must come back to the count
  before the first round;
- /proc/meminfo MemAvailable, logged each round (page cache and slab move
  it, so it is a trend to read, with a loose bound: MEM_DROP_MAX).
"""
import re

FOOTPRINT_SCRIPT = ("rdma res; echo @@vmstat; grep -E '^nr_foll_pin_(acquired|released) ' "
                    "/proc/vmstat; echo @@meminfo; grep -E '^(MemAvailable|SUnreclaim):' "
                    "/proc/meminfo")
RES_LINE = re.compile(r"^\d+:\s+(\S+):\s+(.*)$")
# MemAvailable may fall this far below its value after round 1 (KiB) in
# the 2 GiB guest: over 30 rounds it stayed within 32 MiB on Debian 12 and fell
# by 65 MiB on Debian 13 (the middleware's files in /dev/shm, history.md
# "The middleware soak").
MEM_DROP_MAX = 256 * 1024


def parse_footprint(text):
    """{"res": {device: {object: count}}, "pinned": pages, "mem": {field:
    KiB}} of FOOTPRINT_SCRIPT's output."""
    res, vmstat, mem, section = {}, {}, {}, "res"
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("@@"):
            section = line[2:]
            continue
        fields = line.split()
        if section == "res":
            match = RES_LINE.match(line)
            if match:
                pairs = match.group(2).split()
                res[match.group(1)] = {pairs[i]: int(pairs[i + 1])
                                       for i in range(0, len(pairs) - 1, 2)
                                       if pairs[i + 1].isdigit()}
        elif section == "vmstat" and len(fields) == 2:
            vmstat[fields[0]] = int(fields[1])
        elif section == "meminfo" and len(fields) >= 2:
            mem[fields[0].rstrip(":")] = int(fields[1])
    pinned = vmstat.get("nr_foll_pin_acquired", 0) - vmstat.get("nr_foll_pin_released", 0)
    return {"res": res, "pinned": pinned, "mem": mem}


def leaks(baseline, now):
    """What `now` holds beyond `baseline` (both parse_footprint's), as
    text lines; empty when nothing was left behind."""
    found = []
    for dev, counts in sorted(now["res"].items()):
        before = baseline["res"].get(dev, {})
        for obj, count in sorted(counts.items()):
            if count > before.get(obj, 0):
                found.append("%s: %d %s left (%d before the first round)"
                             % (dev, count, obj, before.get(obj, 0)))
    if now["pinned"] > baseline["pinned"]:
        found.append("%d pages still pinned (FOLL_PIN), %d before the first round"
                     % (now["pinned"], baseline["pinned"]))
    return found
