#!/bin/sh
# git-revision.sh SRCDIR — the git revision the build comes from, for vcs_tag:
# `git describe` in a git tree; else the file SRCDIR/.git-revision that a copy of
# the tree made for a package build carries (tests/package/deb.sh writes it);
# else nothing (exit 1: vcs_tag then uses its empty fallback).
git -C "$1" describe --always --dirty --abbrev=12 2>/dev/null && exit 0
[ -s "$1/.git-revision" ] && exec head -c 64 "$1/.git-revision"
exit 1
