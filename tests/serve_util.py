"""serve_util.py - helpers shared by the tests of `mmtb-probe serve`
(serve_test.py, browser_test.py) and scripts/bench-serve: start the server on
a free loopback port and stop it, plain HTTP requests, and `mmtb-probe probe
--json` as the reference answer.  Standard library only; nothing here knows
the expected values."""

import http.client
import json
import os
import shutil
import re
import signal
import subprocess
import tempfile
import time
import urllib.parse

LISTEN_RE = re.compile(r"listening on http://(\[[^\]]*\]|[^:/]+):(\d+)/")


class Server:
    """A running `mmtb-probe serve -t TABLES --port 0` (the kernel picks a
    free port; the server prints it).  Its stderr goes to a temporary file,
    read back by stop()."""

    def __init__(self, probe, tables, threads=4, extra=()):
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [probe, "serve", "-t", tables, "--bind", "127.0.0.1", "--port", "0",
             "--threads", str(threads), *extra],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        m = LISTEN_RE.search(line)
        if not m:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("serve did not start: %r, stderr: %s" % (line, self.stderr()))
        self.host, self.port = "127.0.0.1", int(m.group(2))

    def stderr(self):
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def stop(self, sig=signal.SIGTERM, timeout=30):
        """Send sig and wait; returns (exit code, stderr)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = "hung"
        self.proc.stdout.close()
        err = self.stderr()
        self.log.close()
        return code, err

    def url(self, path="/"):
        return "http://%s:%d%s" % (self.host, self.port, path)


def request(port, path, method="GET", conn=None, timeout=30):
    """One request; returns (status, headers as a dict with lower-case
    names, body bytes).  With conn, that keep-alive connection is used."""
    own = conn is None
    if own:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path)
        r = conn.getresponse()
        body = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body
    finally:
        if own:
            conn.close()


def probe_path(position, pv=None):
    q = "position=" + urllib.parse.quote(position, safe="")
    if pv is not None:
        q += "&pv=%d" % pv
    return "/api/probe?" + q


def get_json(port, path, conn=None):
    status, headers, body = request(port, path, conn=conn)
    return status, json.loads(body.decode("utf-8"))


def cli_probe(probe, tables, position):
    """`mmtb-probe probe --json POSITION`: the reference answer (a dict with
    wdl, dtw and moves), or None when it fails."""
    r = subprocess.run([probe, "probe", "-t", tables, "--json", position],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def generate(gen, variant, out, *args):
    """Solve tables with mmtb-gen (a rerun on finished tables only checks
    them and keeps every sector: well under a second).  Tables of an older
    format left in a build directory are made again: mmtb-gen never
    overwrites another version's tables."""
    manifest = os.path.join(out, "MANIFEST")
    if os.path.exists(manifest):
        with open(manifest) as f:
            if f.readline().strip() != "mmtb-manifest 2":
                shutil.rmtree(out)
    subprocess.run([gen, "-v", variant, *args, "-o", out], check=True,
                   stdout=subprocess.DEVNULL, timeout=1200)


def wait_until(pred, timeout=20.0, step=0.05):
    """Poll pred() until it is true or timeout seconds have passed."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


# The table sets the serve tests use, made once by the ctest fixture
# serve_tables: `python3 serve_util.py MMTB_GEN DIR`.
TABLE_SETS = {
    "three-diag": ("three-diag", "--start"),
    "six": ("six", "--start"),
    "nine-3": ("nine", "--max-stones", "3"),
    "six-44": ("six", "--start", "4,4"),
}


def main(argv):
    gen, top = argv[1], argv[2]
    os.makedirs(top, exist_ok=True)
    for name, (variant, *args) in TABLE_SETS.items():
        generate(gen, variant, os.path.join(top, name), *args)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv))
