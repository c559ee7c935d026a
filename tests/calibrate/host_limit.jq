# tests/calibrate/host_limit.jq - is calibrate's "this host set the figures" verdict the one its
# own rules give on the figures it reported?  (calibrate --json on stdin; prints a JSON array of
# disagreements, empty when there are none.)
#
# Whether a host limits a rate against a real peer (tgt, lunlab's unlimited LU on loopback)
# depends on how fast the peer, the loopback and the client ran this time, so a test against one
# cannot assert the verdict itself; what holds for every outcome of that noise is that the
# verdict follows the rules from the figures measured, and that the JSON, its notes and the
# table say it the same way.  The rules themselves are tested on controlled figures
# (tests/unit/client/test_calib_host_limit.c).  Two rules:
#  - a point (client/calib_host_limit.c, on its last closed-loop try): the client used
#    $cpu of a core, or the rate reached $nop of the NOP-Outs/s the transport alone turns
#    around, or a READ/WRITE moved $loop of this host's loopback TCP; the shares are the
#    CALIB_HOST_* constants of client/calib_host_limit.h, passed in by the caller;
#  - the run (client/calib_describe.c machine_notes): a limited measured point, or a fixed
#    latency under 3 standard deviations of the NOP round trip (in the array's time).
# Notes are capped at 16 (CALIB_MAX_NOTES): once full, a missing note is not a disagreement.
def host_limited($f):
  (.closed_loop | length) > 0 and
  (.closed_loop[-1] as $t |
    $t.client_cpu >= $cpu or
    (($f.nop_per_s // 0) > 0 and $t.per_s >= $nop * $f.nop_per_s) or
    ((.kind == "READ" or .kind == "WRITE") and ($f.loopback_mb_s // 0) > 0 and
     $t.per_s * .bytes / 1e6 >= $loop * $f.loopback_mb_s));
. as $r
| ($r.notes | length >= 16) as $full
| ([$r.points[] | select(.measured and .machine_limited)] | length > 0) as $points
| (3 * $r.floor.nop_rtt_sigma_us * 1000 / $r.time_scale) as $floor
| ($r.fit.params.fixed.value) as $fixed
# at the threshold itself the two roundings of the same product may differ: either verdict holds
| (if ($fixed - $floor | fabs) <= 1e-9 * $floor then null else $fixed < $floor end) as $below
| ($r.notes | map(select(test("faster than this host can measure"))) | length > 0) as $point_note
| ($r.notes | map(select(test("within the noise of the transport's own round trip"))) | length > 0) as $floor_note
| [ ($r.points[] | select(host_limited($r.floor) != .machine_limited)
     | "\(.kind) \(.bytes) B: machine_limited \(.machine_limited), but its last try (\(.closed_loop[-1] | tojson)) gives \(host_limited($r.floor))"),
    (select($point_note != $points and ($points | not or ($full | not)))
     | "limited measured points: \($points), a note saying the LU is faster than this host can measure: \($point_note)"),
    (select($below != null and $floor_note != $below and ($below | not or ($full | not)))
     | "fixed \($fixed) ns against the NOP round trip's floor \($floor) ns: below \($below), a note saying so: \($floor_note)"),
    (select($below != null and $r.machine_limited != ($points or $below))
     | "machine_limited \($r.machine_limited), but limited points \($points) and fixed below the floor \($below)"),
    (select($below == null and $points and ($r.machine_limited | not))
     | "machine_limited false with limited measured points") ]
