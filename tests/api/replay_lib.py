"""What the per-client replay tests (tests/api/replay_*.py) share: the
target's address from run.sh's environment, a requests.Session per client
(cookies kept as the client's HTTP library keeps them), checks that count,
and type assertions in the terms a client parses a field with:

  str      a JSON string
  int      a JSON integer (Go int, Python int())
  num      a JSON number, integer or not (Go float64)
  strint   a JSON string holding a decimal integer (Go `json:",string"` on int)
  strnum   a JSON string holding a number (Go `json:",string"` on float64)
  strbool  a JSON string "true"/"false" (Go `json:",string"` on bool)
  list     a JSON array
"""
import os
import sys

import requests
import urllib3

urllib3.disable_warnings()
API = os.environ["LUNLAB_API"]
USER = os.environ["LUNLAB_API_USER"]
PASSWORD = os.environ["LUNLAB_API_PASSWORD"]
BASE = "https://" + API
failures = 0
checks = 0


def ok(label, cond, detail=""):
    global failures, checks
    checks += 1
    print(("ok: %s" if cond else "FAIL: %s " + str(detail)) % label)
    if not cond:
        failures += 1
    return cond


class _Session(requests.Session):
    # verify=False per request: a Session's own verify loses to REQUESTS_CA_BUNDLE
    def request(self, method, url, **kw):
        kw.setdefault("verify", False)
        kw.setdefault("timeout", 60)
        return super().request(method, url, **kw)


def session():
    return _Session()


def _is(kind, v):
    if kind == "str":
        return isinstance(v, str)
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "num":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == "strint":
        return isinstance(v, str) and v.lstrip("-").isdigit()
    if kind == "strnum":
        try:
            return isinstance(v, str) and float(v) == float(v)
        except ValueError:
            return False
    if kind == "strbool":
        return v in ("true", "false")
    if kind == "list":
        return isinstance(v, list)
    raise ValueError(kind)


def fields(label, obj, spec):
    """every field in spec ({name: kind}) present in obj with that type"""
    for name, kind in spec.items():
        ok("%s: %s is %s" % (label, name, kind), isinstance(obj, dict) and name in obj and _is(kind, obj[name]),
           obj.get(name, "<absent>") if isinstance(obj, dict) else obj)


def absent(label, obj, names):
    """fields the client reads that lunlab does not serve yet (docs/api.md
    says so): asserted absent, so serving one means moving it to fields()"""
    for name in names:
        ok("%s: %s not served yet" % (label, name), name not in obj, obj.get(name))


def finish(name):
    print("%s: %d checks, %d failed" % (name, checks, failures))
    sys.exit(1 if failures else 0)
