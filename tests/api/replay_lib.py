"""What the API tests share (the per-client replays tests/api/replay_*.py and
the resource tests xms_api.py, refresh_api.py, arrays_api.py, persist_api.py...):
the target's address from run.sh's environment, a requests.Session per client
(cookies kept as the client's HTTP library keeps them), checks that count
(ok, expect_err, finish), plain Basic-auth requests (req, lunlab_req, created),
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
AUTH = (USER, PASSWORD)
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


def req(method, path, v=2, auth=AUTH, **kw):
    """XMS's .../types/PATH with Basic auth: v=2 /api/json/v2/types, v=3 /api/json/v3/types,
    v=1 /api/json/types (no version)"""
    url = "%s/api/json/%stypes/%s" % (BASE, "" if v == 1 else "v%d/" % v, path)
    kw.setdefault("verify", False)
    kw.setdefault("timeout", 60)
    return requests.request(method, url, auth=auth, **kw)


def lunlab_req(method, path, **kw):
    """lunlab's own /api/lunlab/PATH with Basic auth"""
    kw.setdefault("verify", False)
    kw.setdefault("timeout", 60)
    return requests.request(method, "%s/api/lunlab/%s" % (BASE, path), auth=AUTH, **kw)


def is_err(r, status, message):
    """r is XMS's error body exactly: {"message": message, "error_code": status}"""
    try:
        return r.status_code == status and r.json() == {"message": message, "error_code": status}
    except ValueError:
        return False


def expect_err(label, r, status, message):
    return ok(label, is_err(r, status, message), (r.status_code, r.text))


def created(r):
    """the index a 201's link names, or None"""
    return int(r.json()["links"][0]["href"].rsplit("/", 1)[1]) if r.status_code == 201 else None


def finish(name):
    print("%s: %d checks, %d failed" % (name, checks, failures))
    sys.exit(1 if failures else 0)
