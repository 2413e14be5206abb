#!/usr/bin/python3
"""JUnit XML for the test tiers: every tier leaves build/results/<tier>.xml
and `make test` (scripts/run-tests.sh) sums those files.

    junit.py counts FILE             print "passed failed" of a JUnit file
    junit.py finish TIER STATUS      close a tier's run (see finish())
    junit.py from-tap SUITE OUT      GLib/TAP text on stdin -> JUnit (qtest)
    junit.py from-lines SUITE OUT    "name pass|fail [message]" lines on
                                     stdin -> JUnit (fuzz targets)
    junit.py merge OUT IN...         the test suites of several files in one
                                     (qtest: one file per program)

Readers accept what GoogleTest (--gtest_output=xml), pytest (--junitxml)
and this file write: a <testsuites> or <testsuite> root, <testcase>
elements with <failure>, <error> or <skipped> children.  A skipped case
counts as failed: a tier is green only when everything it ran passed
(the project's rule: no skipped-to-pass tests).
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "results")
BAD = ("failure", "error", "skipped")


def case_passed(case):
    # gtest marks a filtered-out or disabled case status="notrun".
    return case.get("status", "run") == "run" and not any(case.find(k) is not None for k in BAD)


def read_cases(path):
    """[(name, passed)] of every testcase, or None when the file is
    missing or not XML."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    return [("%s.%s" % (c.get("classname", ""), c.get("name", "")), case_passed(c))
            for c in root.iter("testcase")]


def counts(path):
    """(passed, failed); a missing, unreadable or empty report is (0, 1)."""
    cases = read_cases(path)
    if not cases:
        return 0, 1
    passed = sum(1 for _, ok in cases if ok)
    return passed, len(cases) - passed


def write(path, suite, cases):
    """cases: [(name, status, message)], status "pass", "fail" or "skip"."""
    root = ET.Element("testsuites")
    node = ET.SubElement(root, "testsuite", name=suite, tests=str(len(cases)),
                         failures=str(sum(1 for c in cases if c[1] == "fail")),
                         skipped=str(sum(1 for c in cases if c[1] == "skip")))
    for name, status, message in cases:
        case = ET.SubElement(node, "testcase", classname=suite, name=name)
        if status == "fail":
            ET.SubElement(case, "failure", message=message[:200]).text = message
        elif status == "skip":
            ET.SubElement(case, "skipped", message=message[:200])
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def append_failure(path, suite, name, message):
    """Adds one failed case to a JUnit file (creating it if missing)."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        write(path, suite, [(name, "fail", message)])
        return
    root = tree.getroot()
    node = root if root.tag == "testsuite" else ET.SubElement(root, "testsuite", name=suite)
    case = ET.SubElement(node, "testcase", classname=suite, name=name)
    ET.SubElement(case, "failure", message=message[:200]).text = message
    tree.write(path, encoding="utf-8", xml_declaration=True)


def finish(tier, status):
    """The end of every tier's runner: build/results/<tier>.xml must exist
    and, when the runner exited non-zero (a crash, a sanitizer report
    after the last case, a build error) without a failed case in it, gets
    one; writes build/results/<tier>.txt ("passed=N failed=M") and
    returns the exit status of the tier."""
    xml = os.path.join(RESULTS, tier + ".xml")
    if read_cases(xml) is None:
        append_failure(xml, tier, "results", "the tier wrote no JUnit XML (exit status %d)" % status)
    elif status != 0 and counts(xml)[1] == 0:
        append_failure(xml, tier, "exit_status", "the tier exited with status %d" % status)
    passed, failed = counts(xml)
    with open(os.path.join(RESULTS, tier + ".txt"), "w") as f:
        f.write("passed=%d failed=%d\n" % (passed, failed))
    print("%s: passed=%d failed=%d (%s)" % (tier, passed, failed, os.path.relpath(xml)))
    return 0 if failed == 0 else 1


TAP_RESULT = re.compile(r"^(not ok|ok) \d+ (?:- )?(.*?)(?:\s+# (SKIP|TODO)\b(.*))?$")
TAP_PLAN = re.compile(r"^1\.\.(\d+)")


def from_tap(text):
    """Cases of a TAP stream; the tests a plan announced but that never
    reported (an abort stops the program) are failed cases."""
    cases, planned, comments = [], None, []
    for line in text.splitlines():
        m = TAP_RESULT.match(line)
        if m:
            status = "skip" if m.group(3) == "SKIP" else ("pass" if m.group(1) == "ok" else "fail")
            cases.append((m.group(2), status, "\n".join(comments[-20:])))
            comments = []
            continue
        m = TAP_PLAN.match(line)
        if m and planned is None:
            planned = int(m.group(1))
        elif line.strip():
            comments.append(line)
    for i in range(len(cases), planned or 0):
        cases.append(("not-run-%d" % (i + 1), "fail",
                      "planned %d tests, the program stopped after %d:\n%s"
                      % (planned, len(cases), "\n".join(comments[-20:]))))
    return cases


def from_lines(text):
    cases = []
    for line in text.splitlines():
        fields = line.split(None, 2)
        if len(fields) >= 2:
            cases.append((fields[0], fields[1], fields[2] if len(fields) > 2 else ""))
    return cases


def merge(out, inputs):
    """Every <testsuite> of inputs under one <testsuites> root in out; an
    unreadable input becomes a failed case of its own."""
    root = ET.Element("testsuites")
    for path in inputs:
        try:
            node = ET.parse(path).getroot()
        except (OSError, ET.ParseError):
            name = os.path.basename(path)
            suite = ET.SubElement(root, "testsuite", name=name, tests="1", failures="1")
            case = ET.SubElement(suite, "testcase", classname=name, name="results")
            ET.SubElement(case, "failure", message="no JUnit XML").text = path
            continue
        root.extend([node] if node.tag == "testsuite" else list(node))
    ET.ElementTree(root).write(out, encoding="utf-8", xml_declaration=True)


def main(argv):
    if len(argv) == 2 and argv[0] == "counts":
        print("%d %d" % counts(argv[1]))
        return 0
    if len(argv) == 3 and argv[0] == "finish":
        return finish(argv[1], int(argv[2]))
    if len(argv) == 3 and argv[0] in ("from-tap", "from-lines"):
        convert = from_tap if argv[0] == "from-tap" else from_lines
        write(argv[2], argv[1], convert(sys.stdin.read()))
        return 0
    if len(argv) >= 3 and argv[0] == "merge":
        merge(argv[1], argv[2:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
