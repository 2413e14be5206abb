#!/usr/bin/python3
"""Prints "passed failed" for a pytest --junitxml file (skips count as
failed; a missing or empty report is "0 1").  Used by scripts/run-verbs.sh
and scripts/run-uverbs.sh."""
import sys
import xml.etree.ElementTree as ET

try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError, IndexError):
    print("0 1")
    raise SystemExit
suite = root if root.tag == "testsuite" else root.find("testsuite")
total = int(suite.get("tests", 0))
bad = sum(int(suite.get(k, 0)) for k in ("failures", "errors", "skipped"))
print(total - bad, bad if total else 1)
