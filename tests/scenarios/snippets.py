#!/usr/bin/python3
"""The CI snippets of docs/scenarios.md ("From CI"): each ```yaml block after "GitLab CI (" and
"GitHub Actions (" must parse as YAML (python3-yaml), and its scenario loop is written out as a
shell script (OUTDIR/gitlab.sh, OUTDIR/github.sh) for run.sh to check with bash -n and to run.

usage: snippets.py docs/scenarios.md OUTDIR
"""
import re
import sys

import yaml


def block_after(text, marker):
    at = text.index(marker)
    m = re.compile(r"```yaml\n(.*?)```", re.S).search(text, at)
    assert m, f"no ```yaml block after {marker!r}"
    return yaml.safe_load(m.group(1))


def main():
    text = open(sys.argv[1]).read()
    out = sys.argv[2]
    gitlab = block_after(text, "GitLab CI (")
    script = gitlab["array-events"]["script"]
    assert gitlab["array-events"]["artifacts"]["reports"]["junit"] == "junit/*.xml", gitlab
    loop = [s for s in script if "lunlab-bench scenario" in s]
    assert len(loop) == 1, f"GitLab: {len(loop)} script entries run scenarios, want 1"
    open(out + "/gitlab.sh", "w").write("mkdir -p junit\n" + loop[0])
    github = block_after(text, "GitHub Actions (")
    steps = github["jobs"]["array-events"]["steps"]
    runs = [s["run"] for s in steps if "run" in s and "lunlab-bench scenario" in s["run"]]
    assert len(runs) == 1, f"GitHub: {len(runs)} steps run scenarios, want 1"
    assert any(s.get("with", {}).get("report_paths") == "junit/*.xml" for s in steps), steps
    open(out + "/github.sh", "w").write(runs[0])
    print("ok: both snippets parse; their loops written to", out)


if __name__ == "__main__":
    main()
