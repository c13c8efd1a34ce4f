"""browser_test.py - the board page of `mmtb-probe serve` in a real browser:
headless Chromium driven over the DevTools protocol (a websocket client in
standard-library Python below).  On three-diag --start it clicks moves with
real mouse events (placements, then moves from-to), and after every ply checks
the value and every move value the page shows against `mmtb-probe probe
--json`, and the position reached against `mmtb-probe moves --play`; then
undo, and a position pasted into the text box.  On six it plays a mill whose
removal is chosen by a click.  Screenshots go to MMTB_SCREENSHOT_DIR.
Exit 0 passed, 1 failed, 77 skipped (no Chromium).  Run by ctest as
serve_browser with MMTB_PROBE and MMTB_SERVE_TABLES set."""

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import serve_util as su

PROBE = os.environ.get("MMTB_PROBE", "")
TOP = os.environ.get("MMTB_SERVE_TABLES", "")
SHOTS = os.environ.get("MMTB_SCREENSHOT_DIR", "")


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


# ---- a minimal websocket client (RFC 6455, text frames) -------------------

class WebSocket:
    def __init__(self, url, timeout=30):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n"
                           % (u.path, u.hostname, u.port, key)).encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise Failure("websocket handshake: connection closed")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise Failure("websocket handshake refused: %r" % head[:200])

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise Failure("websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send_frame(self, opcode, data):
        head = bytes([0x80 | opcode])
        n = len(data)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def recv(self):
        """The next whole text message (pings answered, fragments joined)."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            op = b0 & 0x0F
            if op == 0x9:
                self._send_frame(0xA, data)
                continue
            if op == 0x8:
                raise Failure("websocket closed by the browser")
            if op in (0x1, 0x0):
                parts.append(data)
                if b0 & 0x80:
                    return b"".join(parts).decode("utf-8")

    def close(self):
        try:
            self._send_frame(0x8, b"")
        except OSError:
            pass
        self.sock.close()


class Browser:
    """Headless Chromium with one page, driven by DevTools commands."""

    def __init__(self, exe):
        self.dir = tempfile.mkdtemp(prefix="mmtb-chromium-")
        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--mute-audio",
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
             "--user-data-dir=" + self.dir, "--window-size=1100,760", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        portfile = os.path.join(self.dir, "DevToolsActivePort")
        check(su.wait_until(lambda: os.path.exists(portfile) and
                            len(open(portfile).read().split()) >= 2, timeout=60),
              "Chromium did not open its DevTools port")
        port = int(open(portfile).read().split()[0])
        targets = su.wait_until(lambda: [t for t in json.load(urllib.request.urlopen(
            "http://127.0.0.1:%d/json/list" % port, timeout=10)) if t["type"] == "page"])
        check(targets, "Chromium has no page")
        self.ws = WebSocket(targets[0]["webSocketDebuggerUrl"])
        self.next_id = 0

    def cmd(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise Failure("%s: %s" % (method, msg["error"]))
                return msg["result"]

    def eval(self, expr):
        r = self.cmd("Runtime.evaluate", expression=expr, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise Failure("page script failed: %s\n%s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def click_at(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.cmd("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, name):
        if not SHOTS:
            return None
        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, name)
        data = self.cmd("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(self.dir, ignore_errors=True)


# ---- the page as a person sees it -------------------------------------------

READ_PAGE = """(() => {
  const v = document.getElementById('value');
  const rows = [...document.querySelectorAll('#moves tr')].map((tr) =>
      [tr.dataset.move, tr.dataset.wdl, tr.dataset.dtw === '' ? null : +tr.dataset.dtw,
       tr.cells[1].textContent]);
  const marks = {};
  for (const m of document.querySelectorAll('[data-mark]'))
    marks[m.closest('[data-point]').dataset.point] = m.dataset.mark;
  const stones = {};
  for (const s of document.querySelectorAll('[data-stone]'))
    stones[s.closest('[data-point]').dataset.point] = s.dataset.stone;
  return {wdl: v.dataset.wdl, dtw: v.dataset.dtw === '' ? null : +v.dataset.dtw,
          text: v.textContent, rows, marks, stones,
          position: document.getElementById('postext').value,
          error: document.getElementById('error').textContent,
          pv: document.getElementById('pv').textContent};
})()"""


def idle(b):
    check(su.wait_until(lambda: b.eval("!!document.body && document.body.dataset.busy === '0' && "
                                       "document.body.dataset.ready === '1'"), timeout=30),
          "the page did not settle")


def navigate(b, url):
    """Load url and wait until the page has drawn its first position."""
    b.cmd("Page.navigate", url=url)
    check(su.wait_until(lambda: b.eval("location.href") == url, timeout=30),
          "the browser did not go to " + url)
    idle(b)


def click_point(b, name):
    """A real mouse click at the centre of the point's drawing."""
    r = b.eval("(() => { const r = document.querySelector('[data-point=\"%s\"]')"
               ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
               % name)
    b.click_at(r[0], r[1])
    idle(b)


def click_button(b, ident):
    r = b.eval("(() => { const r = document.getElementById('%s').getBoundingClientRect();"
               " return [r.x + r.width / 2, r.y + r.height / 2]; })()" % ident)
    b.click_at(r[0], r[1])
    idle(b)


def same_position(a, b):
    """Equal simple forms up to the order of the points in each list."""
    fa, fb = a.split(), b.split()
    return len(fa) == len(fb) and all(
        (set(x.split(",")) if i < 2 else x) == (set(y.split(",")) if i < 2 else y)
        for i, (x, y) in enumerate(zip(fa, fb)))


def value_text(wdl, dtw):
    return "draw" if wdl == "draw" else "%s in %d" % (wdl, dtw)


def check_against_cli(page, tables):
    """The value and every move value shown equal `mmtb-probe probe`."""
    ref = su.cli_probe(PROBE, tables, page["position"])
    check(ref is not None, "mmtb-probe probe cannot answer %r" % page["position"])
    check((page["wdl"], page["dtw"]) == (ref["wdl"], ref["dtw"]),
          "%s: page shows %s %s, probe says %s %s" % (page["position"], page["wdl"], page["dtw"],
                                                    ref["wdl"], ref["dtw"]))
    shown = [tuple(r[:3]) for r in page["rows"]]
    want = [(m["move"], m["wdl"], m["dtw"]) for m in ref["moves"]]
    check(shown == want, "%s: moves shown %s, probe says %s" % (page["position"], shown, want))
    for r in page["rows"]:
        check(r[3] == value_text(r[1], r[2]), "row text %r for %r" % (r[3], r))
    if ref["moves"] and not ref.get("game_over"):
        check(value_text(ref["wdl"], ref["dtw"]) in page["text"],
              "value line %r for %s" % (page["text"], ref["wdl"]))
    return ref


def cli_after(position, move, variant):
    """The position reached by `move`, by the rules library (moves --play)."""
    mr = subprocess.run([PROBE, "moves", "-v", variant, "--json", "--play", move,
                         position], capture_output=True, text=True, timeout=60)
    check(mr.returncode == 0, "moves --play %s from %s: %s" % (move, position, mr.stderr))
    return json.loads(mr.stdout)["position"]


def play_by_clicks(b, move):
    """Click the points of a move: placement: its point; else the stone it
    leaves, the point it reaches; then the stone it removes when the page
    asks (several moves share from and to)."""
    if move["from"] is None and move["to"] is None:
        click_point(b, move["remove"])
        return
    if move["from"] is not None:
        click_point(b, move["from"])
        page = b.eval(READ_PAGE)
        check(move["to"] in page["marks"], "after clicking %s, %s is not marked" % (move["from"], move["to"]))
    before = b.eval(READ_PAGE)["position"]
    click_point(b, move["to"])
    if move["remove"] is not None and b.eval(READ_PAGE)["position"] == before:
        page = b.eval(READ_PAGE)
        check(move["remove"] in page["marks"], "removal %s not offered" % move["remove"])
        click_point(b, move["remove"])


def three_diag(b, server):
    t3d = os.path.join(TOP, "three-diag")
    navigate(b, server.url("/"))
    page = b.eval(READ_PAGE)
    check(page["position"] == "- - w 3 3", "start shown as %r" % page["position"])
    ref = check_against_cli(page, t3d)
    check(page["wdl"] == "win" and page["rows"][0][0] == "b2", "start: %s" % page)
    # every empty point carries its placement's value; only b2 wins
    check(page["marks"].get("b2") == "win", "b2 mark: %s" % page["marks"])
    check([p for p, w in page["marks"].items() if w == "win"] == ["b2"], "marks %s" % page["marks"])
    check(len(page["marks"]) == 9, "marks %s" % page["marks"])
    b.screenshot("three-diag-start.png")

    # play by clicks: the second-best move when there is one (to see draws and
    # losses too), the best one every third ply
    history = [page["position"]]
    for ply in range(10):
        answer = su.get_json(server.port, su.probe_path(page["position"]))[1]
        if not answer["moves"]:
            break
        m = answer["moves"][0 if ply % 3 == 0 or len(answer["moves"]) == 1 else 1]
        play_by_clicks(b, m)
        page = b.eval(READ_PAGE)
        check(page["error"] == "", "error shown: %s" % page["error"])
        want = cli_after(history[-1], m["move"], "three-diag")
        check(page["position"] == want, "after %s: page %r, rules %r" % (m["move"], page["position"], want))
        ref = check_against_cli(page, t3d)
        white = {p for p, c in page["stones"].items() if c == "white"}
        check(white == set(want.split()[0].split(",")) - {"-"}, "white stones drawn %s" % white)
        history.append(page["position"])
        print("ply %d: %-8s -> %s (%s)" % (ply + 1, m["move"], page["position"],
                                           value_text(ref["wdl"], ref["dtw"])))
    check(len(history) >= 8, "the game ended after %d plies" % (len(history) - 1))
    b.screenshot("three-diag-game.png")

    # undo twice: two positions back, values again as the CLI says
    click_button(b, "undo")
    click_button(b, "undo")
    page = b.eval(READ_PAGE)
    check(page["position"] == history[-3], "undo: %r, want %r" % (page["position"], history[-3]))
    check_against_cli(page, t3d)

    # paste a position and load it; then a bad one leaves it and says why
    b.eval("document.getElementById('postext').value = 'a1,c3 b2 b 1 2'")
    click_button(b, "load")
    page = b.eval(READ_PAGE)
    check(page["position"] == "a1,c3 b2 b 1 2", "loaded %r" % page["position"])
    check_against_cli(page, t3d)
    b.eval("document.getElementById('postext').value = 'a1,c3 b2 x'")
    click_button(b, "load")
    page = b.eval(READ_PAGE)
    check("side" in page["error"], "no message for a bad position: %r" % page["error"])
    check(page["rows"] and page["wdl"] is not None, "the last good position stays shown: %s" % page)


def six(b, server):
    """A mill closed by a flight, the stone to remove chosen by a click."""
    t6 = os.path.join(TOP, "six")
    pos = "a5,c5,e3 b2,d2,c1 w"
    navigate(b, server.url("/#" + urllib.parse.quote(pos)))
    page = b.eval(READ_PAGE)
    check(same_position(page["position"], pos), "six: shown %r" % page["position"])
    check_against_cli(page, t6)
    click_point(b, "e3")
    click_point(b, "e5")
    page = b.eval(READ_PAGE)
    check(same_position(page["position"], pos), "the move was played before the removal was chosen")
    check(set(page["marks"]) == {"b2", "d2", "c1"} and set(page["marks"].values()) == {"win"},
          "removals offered: %s" % page["marks"])
    b.screenshot("six-removal.png")
    click_point(b, "d2")
    page = b.eval(READ_PAGE)
    want = cli_after(pos, "e3-e5xd2", "six")
    check(page["position"] == want, "six: %r, rules %r" % (page["position"], want))
    check(page["text"].startswith("Game over: Black has lost"), "six: %r" % page["text"])
    check_against_cli(page, t6)


def main():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("SKIP: Chromium not found (scripts/setup installs it with MMTB_BROWSER_TESTS=1)")
        return 77
    if not PROBE or not TOP:
        print("MMTB_PROBE and MMTB_SERVE_TABLES must be set")
        return 1
    servers = {}
    b = None
    try:
        servers["t3d"] = su.Server(PROBE, os.path.join(TOP, "three-diag"), threads=2)
        servers["t6"] = su.Server(PROBE, os.path.join(TOP, "six"), threads=2)
        b = Browser(exe)
        b.cmd("Page.enable")
        b.cmd("Runtime.enable")
        three_diag(b, servers["t3d"])
        six(b, servers["t6"])
    except Failure as e:
        print("FAIL:", e)
        return 1
    finally:
        if b:
            b.close()
        for name, s in servers.items():
            code, err = s.stop()
            if code != 0 or "Sanitizer" in err or "runtime error" in err:
                print("FAIL: server %s stopped with %r:\n%s" % (name, code, err))
                return 1
    print("browser test passed%s" % (": screenshots in " + SHOTS if SHOTS else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
