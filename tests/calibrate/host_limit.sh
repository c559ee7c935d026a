# shellcheck shell=bash
# tests/calibrate/host_limit.sh - sourced by tgt.sh and unlimited.sh: whether calibrate said
# consistently where the measuring host, not the LU, set figures (host_limit.jq says why only
# that, and not the verdict itself, can be asserted against a real peer).
host_limit_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# host_share NAME: the CALIB_HOST_<NAME> constant, from the header that defines it
host_share() {
    awk -v n="CALIB_HOST_$1" '$1 == "#define" && $2 == n { print $3 }' "$host_limit_dir/../../client/calib_host_limit.h"
}

# host_limit_json RUN.json: 0 when every verdict of the run follows the rules from its own
# figures and its notes say the same; prints what disagrees otherwise
host_limit_json() {
    local out
    out=$(jq -c --argjson cpu "$(host_share CPU_SHARE)" --argjson nop "$(host_share NOP_SHARE)" \
        --argjson loop "$(host_share LOOPBACK_SHARE)" -f "$host_limit_dir/host_limit.jq" "$1") || {
        echo "host_limit.jq could not read $1"; return 1; }
    [[ $out == "[]" ]] || { echo "$out"; return 1; }
}

# host_limit_table TABLE.txt: its MACHINE-LIMITED line exactly when a note says why
host_limit_table() {
    local notes line
    grep -Eq "^note: .*(faster than this host can measure|within the noise of the transport's own round trip)" "$1" &&
        notes=1 || notes=0
    grep -q "^MACHINE-LIMITED" "$1" && line=1 || line=0
    (( notes == line )) || { echo "MACHINE-LIMITED line: $line, a note saying why: $notes"; return 1; }
}
