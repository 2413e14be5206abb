"""The kselftest directory selftests/kselftest/rdma-vhca (vhca's guest-side
checks in the form of the kernel's tools/testing/selftests: Makefile with
TEST_PROGS, config, KTAP through kselftest's ktap_helpers.sh and runner)
run in the session guest as a CI system that runs kselftests would:
`make -C .../rdma-vhca run_tests`, vhca.ko's path passed the kselftest
way (KSELFTEST_VHCA_MODULE_SH_ARGS).  The KTAP it prints must have its
plan's count of results, none `not ok` and none skipped (the session guest
has everything the tests need).  vhca_module.sh reloads vhca.ko: the
tests after this file see a fresh driver, as after test_ipoib.py.
"""
import re

import vmlib

DIR = "%s/selftests/kselftest/rdma-vhca" % vmlib.REPO
RESULT = re.compile(r"^(?P<prefix>(?:# )*)(?P<ok>ok|not ok) (?P<n>\d+) (?P<desc>.*)$")


def ktap_results(text):
    """[(depth, ok, number, description)] of every KTAP result line,
    nested ones (kselftest's runner prefixes a test's output with "# ")
    included."""
    out = []
    for line in text.splitlines():
        m = RESULT.match(line)
        if m:
            out.append((len(m.group("prefix")) // 2, m.group("ok") == "ok",
                        int(m.group("n")), m.group("desc")))
    return out


def test_kselftest_rdma_vhca(vm, module_path):
    rc, out = vm.run("KSELFTEST_VHCA_MODULE_SH_ARGS=%s make -s -C %s run_tests"
                     % (module_path, DIR), timeout=600)
    vmlib.log("kselftest rdma-vhca", out)
    plan = re.search(r"^1\.\.(\d+)$", out, re.M)
    assert plan, out
    results = ktap_results(out)
    top = [r for r in results if r[0] == 0]
    assert [r[2] for r in top] == list(range(1, int(plan.group(1)) + 1)), out
    failed = [r for r in results if not r[1]]
    assert not failed, "not ok: %s\n%s" % (failed, out)
    skipped = [r for r in results if "# SKIP" in r[3]]
    assert not skipped, "skipped: %s\n%s" % (skipped, out)
    # Each program reported results of its own: one that dies before its
    # plan prints "1..0", which kselftest counts as a pass.
    nested, counts = 0, []
    for depth, _, _, _ in results:
        if depth == 1:
            nested += 1
        elif depth == 0:
            counts.append(nested)
            nested = 0
    assert all(counts), "a program without results: %s\n%s" % (counts, out)
    assert rc == 0, out
