#!/bin/bash
# npm_fetch.sh SRC_DIR WORK_DIR OUT_JS OUT_CSS — the dashboard's chart library at build time:
# `npm ci` of SRC_DIR's package.json + package-lock.json (exact versions, integrity-checked)
# in WORK_DIR, then copies uPlot's browser build next to the binary's embedded files.
# lunlab serves it itself, so the dashboard needs no internet when it runs.
set -euo pipefail
mkdir -p "$2"
src=$(realpath "$1") work=$(realpath "$2") out_js=$(realpath "$3") out_css=$(realpath "$4")
cp "$src/package.json" "$src/package-lock.json" "$work/"
cd "$work"
# --ignore-scripts: nothing from the registry runs at build time; the cache lives in the build
# directory, so the build needs no HOME and leaves nothing outside it
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error --cache "$work/npm-cache" >/dev/null
cp node_modules/uplot/dist/uPlot.iife.min.js "$out_js"
cp node_modules/uplot/dist/uPlot.min.css "$out_css"
