"""Polling a plain CQ for the guest's pyverbs programs (imported from the
programs' own directory, which python3 puts first on sys.path)."""
from verbs_enums import e


def poll_successes(cq, want):
    """The completions of exactly `want` WRs, in order; any status but
    success, or fewer completions after a million polls, raises."""
    got = []
    for _ in range(1000000):
        if len(got) == want:
            break
        n, wcs = cq.poll(want - len(got))
        for wc in wcs[:n]:
            if wc.status != e.IBV_WC_SUCCESS:
                raise RuntimeError("wr_id %d: status %d" % (wc.wr_id, wc.status))
            got.append(wc)
    if len(got) != want:
        raise RuntimeError("%d completions of %d" % (len(got), want))
    return got
