#!/usr/bin/python3
"""Read a scenario's JUnit file with Debian's python3-junitparser (a real consumer of the
format, as CI systems are) and check it against the scenario's --json report: one test case
per expectation with the same name, a failure exactly where the run says an expectation did
not hold (its message naming the expectation and the observed value), durations that are
numbers >= 0 and the suite's counts.

usage: junit_check.py OUT.xml OUT.json
"""
import json
import sys

import junitparser


def main():
    xml_path, json_path = sys.argv[1], sys.argv[2]
    report = json.load(open(json_path))
    xml = junitparser.JUnitXml.fromfile(xml_path)
    suites = list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]
    assert len(suites) == 1, f"{xml_path}: {len(suites)} test suites, want 1"
    suite = suites[0]
    assert suite.name == report["scenario"], f"suite name {suite.name!r}, want {report['scenario']!r}"
    cases = list(suite)
    want = report["expectations"]
    errors = 1 if report["status"] == 2 else 0
    assert len(cases) == len(want) + errors, f"{len(cases)} test cases, want {len(want) + errors}"
    failures = 0
    for case, exp in zip(cases[errors:], want):
        assert case.name == exp["name"], f"test case {case.name!r}, want {exp['name']!r}"
        assert case.classname == report["scenario"], f"classname {case.classname!r}"
        assert case.time is not None and case.time >= 0, f"{case.name}: time {case.time!r}"
        assert abs(case.time - exp["seconds"]) < 0.0011, f"{case.name}: time {case.time}, JSON {exp['seconds']}"
        res = case.result
        if exp["held"] is True:
            assert not res, f"{case.name}: held, but JUnit has {res}"
        elif exp["held"] is False:
            failures += 1
            assert len(res) == 1 and isinstance(res[0], junitparser.Failure), f"{case.name}: want one failure, got {res}"
            msg = res[0].message
            assert exp["name"] in msg and exp["observed"] in msg, f"{case.name}: message {msg!r} names neither"
        else:
            assert len(res) == 1 and isinstance(res[0], junitparser.Skipped), f"{case.name}: want skipped, got {res}"
    if errors:
        assert isinstance(cases[0].result[0], junitparser.Error), "want an error test case first"
        assert report["error"] in cases[0].result[0].message
    assert suite.tests == len(cases), f"suite tests={suite.tests}"
    assert suite.failures == failures, f"suite failures={suite.failures}, counted {failures}"
    assert suite.errors == errors, f"suite errors={suite.errors}"
    assert suite.time is not None and suite.time > 0, f"suite time {suite.time!r}"
    print(f"{xml_path}: {len(cases)} test case(s), {failures} failure(s), {errors} error(s): as the run reported")


if __name__ == "__main__":
    main()
