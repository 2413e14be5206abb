#!/usr/bin/python3
"""Run vhca_kunit.ko in a debug-kernel guest and judge it (run-kunit.sh).

KUnit prints KTAP to the kernel log when the module loads (KUnit runs a
module's suites from its init):

        KTAP version 1
        # Subtest: vhca_cmdq
        1..6
        ok 1 - cmdq_query_device_round_trip
        # cmdq_timeout_kills_queue: EXPECTATION FAILED at ...
        not ok 5 - cmdq_timeout_kills_queue
    # vhca_cmdq: pass:5 fail:1 skip:0 total:6
    ok 1 - vhca_cmdq           (or "not ok")

Test cases are the indented (not )ok lines between "# Subtest: <suite>"
and the suite's own result line.  A case that crashes the kernel never
prints its line: the suite then counts as missing.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "selftests"))
import vmlib  # noqa: E402

SUITES = ["vhca_cmdq", "vhca_eq", "vhca_ring", "vhca_pd", "vhca_ports", "vhca_alloc_fail"]
MODULE = os.environ.get("VHCA_KUNIT_MODULE") or os.path.join(vmlib.BUILD, "debug", "vhca_kunit.ko")
RESULTS = os.path.join(vmlib.BUILD, "results", "kunit.txt")
LOG = os.path.join(vmlib.BUILD, "vm-logs", "kunit-dmesg.log")
# insmod returns when every suite has run; vmlib scales this (TIMEOUT_SCALE).
LOAD_TIMEOUT = 300

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
SUBTEST = re.compile(r"^\s*# Subtest: (\S+)\s*$")
RESULT = re.compile(r"^(\s*)(not ok|ok) \d+ (?:- )?(\S+)(.*)$")


def parse_ktap(text):
    """{suite: {"cases": [(name, passed, skipped)], "ok": bool or None}}."""
    suites = {}
    current = None
    for raw in text.splitlines():
        line = TIMESTAMP.sub("", raw)
        m = SUBTEST.match(line)
        if m:
            current = m.group(1)
            suites[current] = {"cases": [], "ok": None, "diag": []}
            continue
        if current is None:
            continue
        m = RESULT.match(line)
        if m:
            indent, status, name, rest = m.groups()
            passed = status == "ok"
            skipped = "# SKIP" in rest
            if name == current and not indent:
                suites[current]["ok"] = passed
                current = None
            else:
                suites[current]["cases"].append((name, passed, skipped))
        elif "core(level 6)" not in line and "core(level 7)" not in line:
            # Failure messages and the core's warnings and errors: shown
            # for a failed suite (its info lines are just noise there).
            suites[current]["diag"].append(line.rstrip())
    return suites


def main():
    passed = failed = 0
    problems = []
    if not os.path.exists(MODULE):
        print("run-kunit: %s missing" % MODULE, file=sys.stderr)
        return 1
    vm = vmlib.VM(name="kunit")
    log_text = ""
    try:
        vm.start()
        print("run-kunit: %s booted in %.1f s" % (vm.kver, vm.boot_seconds))
        status, out = vm.run("insmod %s" % MODULE, timeout=LOAD_TIMEOUT)
        if status != 0:
            problems.append("insmod vhca_kunit.ko failed (%d): %s" % (status, out.strip()))
        # Leaks of the tests show up now, while the module's symbols still
        # name the allocating functions in kmemleak's backtraces; leaks of
        # the unload after rmmod (the report then lists both).
        leaks = vm.kmemleak_report()
        status, out = vm.run("rmmod vhca_kunit", timeout=120)
        if status != 0:
            problems.append("rmmod vhca_kunit failed (%d): %s" % (status, out.strip()))
        log_text = vm.dmesg()
        if not leaks.strip():
            leaks = vm.kmemleak_report()
        if leaks.strip():
            problems.append("kmemleak:\n" + leaks[:8000])
        bad = vmlib.bad_dmesg_lines(vm.dmesg())
        if bad:
            problems.append("kernel log:\n" + "\n".join(bad[:100]))
    except vmlib.VMError as err:
        problems.append("guest: %s\n%s" % (err, getattr(err, "output", "")))
    finally:
        vm.shutdown()
    os.makedirs(os.path.dirname(LOG), exist_ok=True)
    with open(LOG, "w") as f:
        f.write(log_text)

    suites = parse_ktap(log_text)
    for name in SUITES:
        suite = suites.get(name)
        if suite is None or suite["ok"] is None:
            failed += 1
            got = len(suite["cases"]) if suite else 0
            print("kunit: %s: MISSING or crashed (%d cases reported)" % (name, got))
            continue
        cases = suite["cases"]
        ok = sum(1 for _, p, s in cases if p and not s)
        bad_cases = [c for c, p, s in cases if not p or s]
        passed += ok
        failed += len(bad_cases)
        if not cases:
            failed += 1
            bad_cases = ["(no test cases)"]
        verdict = "ok" if suite["ok"] and not bad_cases else "FAILED"
        print("kunit: %s: %s (%d passed, %d failed%s)" % (
            name, verdict, ok, len(bad_cases),
            ": " + ", ".join(bad_cases) if bad_cases else ""))
        if bad_cases:
            for line in suite["diag"][:60]:
                print("    | " + line)
        if not suite["ok"] and not bad_cases:
            failed += 1
    for extra in sorted(set(suites) - set(SUITES)):
        if extra.startswith("vhca_"):
            print("kunit: %s: not in this runner's suite list" % extra)
            failed += 1
    if problems:
        failed += len(problems)
        for problem in problems:
            print("kunit: " + problem)
    with open(RESULTS, "w") as f:
        f.write("passed=%d failed=%d\n" % (passed, failed))
    print("kunit: passed=%d failed=%d (kernel log: %s)" % (passed, failed, LOG))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
