#!/bin/bash
# tests/lint_python.sh: pyflakes3 over the Python files of the source tree (run from its root by
# meson's python-lint test).  Files are found with git when the tree is a checkout, else by name,
# so a tarball build lints too.  Exit 77 (meson: skipped) when pyflakes3 is not installed.
set -uo pipefail
command -v pyflakes3 >/dev/null || { echo "pyflakes3 not installed (ci/install-deps.sh)"; exit 77; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.py')
else
    mapfile -t files < <(find . -name '*.py' -not -path './build*' -not -path '*/node_modules/*')
fi
(( ${#files[@]} )) || { echo "no Python files found"; exit 1; }
pyflakes3 "${files[@]}" && echo "pyflakes3: ${#files[@]} files clean"
