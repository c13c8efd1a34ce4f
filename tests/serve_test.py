"""serve_test.py - `mmtb-probe serve` over real HTTP on a free loopback port,
against tables made by mmtb-gen (the ctest fixture serve_tables): known
answers through /api/probe in either notation and encoding, the answers equal
`mmtb-probe probe --json`, bad input (400), positions outside the tables
(404), other methods (405), over-long requests (414), CORS, concurrent
requests from several threads equal single ones, /api/stats equal to
`stats --json`, /api/variant, the page, and a clean stop on SIGTERM and
SIGINT.  Run by ctest as serve_api:
    MMTB_PROBE=... MMTB_SERVE_TABLES=DIR python3 -m unittest -v serve_test
"""

import json
import os
import random
import signal
import subprocess
import threading
import unittest

import serve_util as su

PROBE = os.environ.get("MMTB_PROBE", "")
TOP = os.environ.get("MMTB_SERVE_TABLES", "")
T3D, T6, T9, T644 = (os.path.join(TOP, n) for n in ("three-diag", "six", "nine-3", "six-44"))

# Gasser's Fig. 9 (Black to move, a loss in 26 plies), in both notations.
FIG9 = "d7,g7,g1 a4,g4,d5 b"
FIG9_FEN = "@*******/********/OO@O**@* b m s 3 0 3 0 0 0 0 0 0 0 0 0 1"


def sanitizer_report(err):
    return "Sanitizer" in err or "runtime error" in err


class ServeTest(unittest.TestCase):
    servers = {}

    @classmethod
    def setUpClass(cls):
        if not PROBE or not TOP:
            raise unittest.SkipTest("MMTB_PROBE and MMTB_SERVE_TABLES must be set")
        for name, tables in (("t3d", T3D), ("t6", T6), ("t9", T9), ("t644", T644)):
            cls.servers[name] = su.Server(PROBE, tables, threads=4)

    @classmethod
    def tearDownClass(cls):
        for name, s in cls.servers.items():
            code, err = s.stop()
            if code != 0 or sanitizer_report(err):
                raise AssertionError("server %s stopped with %r:\n%s" % (name, code, err))

    def get(self, name, path, method="GET"):
        return su.request(self.servers[name].port, path, method)

    def probe(self, name, position, pv=None, expect=200):
        status, headers, body = self.get(name, su.probe_path(position, pv))
        self.assertEqual(status, expect, body)
        self.assertEqual(headers.get("access-control-allow-origin"), "*")
        self.assertTrue(headers.get("content-type", "").startswith("application/json"))
        return json.loads(body)

    def assert_same_as_cli(self, answer, tables, position):
        """wdl, dtw and every move's value equal `mmtb-probe probe --json`."""
        ref = su.cli_probe(PROBE, tables, position)
        self.assertIsNotNone(ref, position)
        self.assertEqual(answer["wdl"], ref["wdl"], position)
        self.assertEqual(answer["dtw"], ref["dtw"], position)
        self.assertEqual([(m["move"], m["wdl"], m["dtw"]) for m in answer["moves"]],
                         [(m["move"], m["wdl"], m["dtw"]) for m in ref["moves"]], position)

    # ---- known answers -------------------------------------------------

    def test_three_diag_start_is_won_only_by_b2(self):
        for given in ("- - w 3 3", "  - -  w 3 3 "):
            a = self.probe("t3d", given)
            self.assertEqual(a["position"], "- - w 3 3")
            self.assertEqual(a["side"], "white")
            self.assertEqual(a["wdl"], "win")
            self.assertIsNone(a["game_over"])
            self.assertIsNone(a["fen"])  # a 9-point board has no FEN
            self.assertEqual(a["variant"], "three-diag")
            self.assertRegex(a["fingerprint"], "^[0-9a-f]{16}$")
            wins = [m["move"] for m in a["moves"] if m["wdl"] == "win"]
            self.assertEqual(wins, ["b2"])
            self.assertEqual(a["moves"][0]["move"], "b2")
            self.assertEqual(a["moves"][0]["dtw"], a["dtw"])
            self.assertEqual(len(a["moves"]), 9)
            self.assert_same_as_cli(a, T3D, "- - w 3 3")

    def test_url_encodings_agree(self):
        # '+' and %20 for the spaces, and a literal comma or %2C
        port = self.servers["t9"].port
        a = su.get_json(port, "/api/probe?position=d7,g7,g1+a4,g4,d5+b")[1]
        b = su.get_json(port, "/api/probe?position=d7%2Cg7%2Cg1%20a4%2Cg4%2Cd5%20b")[1]
        self.assertEqual(a, b)
        self.assertEqual((a["wdl"], a["dtw"]), ("loss", 26))

    def test_six_start_is_a_draw(self):
        a = self.probe("t6", "- - w 6 6", pv=30)
        self.assertEqual(a["wdl"], "draw")
        self.assertIsNone(a["dtw"])
        self.assertEqual(a["white_hand"], 6)
        self.assertEqual(a["black_hand"], 6)
        self.assertEqual(len(a["moves"]), 16)
        self.assertTrue(all(m["wdl"] == "draw" and m["dtw"] is None for m in a["moves"]))
        self.assertEqual(len(a["pv"]), 20)  # a drawn line: at most 20 plies
        self.assert_same_as_cli(a, T6, "- - w 6 6")

    def test_fig9_in_both_notations(self):
        a = self.probe("t9", FIG9, pv=200)
        b = self.probe("t9", FIG9_FEN, pv=200)
        for x in (a, b):
            self.assertEqual((x["side"], x["wdl"], x["dtw"]), ("black", "loss", 26))
            self.assertEqual(x["moves"][0]["move"], "d5-a7")
            self.assertEqual(x["fen"], FIG9_FEN)
            self.assertEqual(sorted(x["white"]), ["d7", "g1", "g7"])
            self.assertEqual(sorted(x["black"]), ["a4", "d5", "g4"])
            self.assertEqual(len(x["pv"]), 26)  # a loss in 26 is played out in 26 plies
        self.assertEqual(a["moves"], b["moves"])
        self.assert_same_as_cli(a, T9, FIG9)

    def test_moves_lead_where_they_say(self):
        # each move's "after" is the position it leads to: its value is the
        # negated move value (a capture or the end of the game aside)
        a = self.probe("t3d", "b2 a1 b 2 2")
        for m in a["moves"]:
            nxt = self.probe("t3d", m["after"])
            self.assertEqual(nxt["side"], "white")
            flip = {"win": "loss", "loss": "win", "draw": "draw"}[m["wdl"]]
            self.assertEqual(nxt["wdl"], flip, m)
            if m["dtw"] is not None and nxt["game_over"] is None:
                self.assertEqual(nxt["dtw"] + 1, m["dtw"], m)

    def test_answers_equal_the_cli_on_a_random_walk(self):
        rng = random.Random(20)
        for tables, name, start in ((T6, "t6", "- - w 6 6"), (T3D, "t3d", "- - w 3 3")):
            pos = start
            for _ in range(14):
                a = self.probe(name, pos)
                self.assert_same_as_cli(a, tables, pos)
                if not a["moves"]:
                    break
                pos = rng.choice(a["moves"])["after"]

    def test_game_over(self):
        # three-diag: White has a mill; Black to move has lost by the rules
        a = self.probe("t3d", "a1,b2,c3 a2,b1 b 0 1")
        self.assertEqual(a["game_over"], "loss")
        self.assertEqual((a["wdl"], a["dtw"], a["moves"]), ("loss", 0, []))

    # ---- errors --------------------------------------------------------

    def test_bad_position_is_400_with_a_message(self):
        cases = {
            "d7,g7,g1 a4,g4,d5 x": "side",
            "d7,g7,zz a4,g4,d5 b": "zz",
            "a1,a1 - w": "a1",
            "zz": "fields",
        }
        for given, word in cases.items():
            e = self.probe("t9", given, expect=400)
            self.assertIn("bad position", e["error"])
            self.assertIn(word, e["error"], given)
        for path in ("/api/probe", "/api/probe?position=", "/api/probe?pos=x"):
            status, _, body = self.get("t9", path)
            self.assertEqual(status, 400)
            self.assertIn("missing parameter 'position'", json.loads(body)["error"])
        status, _, body = self.get("t9", su.probe_path(FIG9) + "&pv=x")
        self.assertEqual(status, 400)
        self.assertIn("pv", json.loads(body)["error"])
        # bytes that are not text come back as '?', the JSON stays valid
        status, _, body = self.get("t9", "/api/probe?position=%ff%00%22")
        self.assertEqual(status, 400)
        self.assertIn("bad position", json.loads(body.decode("utf-8"))["error"])

    def test_outside_the_tables_is_404(self):
        e = self.probe("t9", "d7,g7,g1,a1 a4,g4,d5 b", expect=404)
        self.assertIn("outside the tables", e["error"])
        self.assertIn("sector 3-4", e["error"])
        e = self.probe("t9", "- - w 9 9", expect=404)
        self.assertIn("sector 0-0-9-9", e["error"])

    def test_unknown_path_is_404(self):
        status, headers, body = self.get("t3d", "/api/nothing")
        self.assertEqual(status, 404)
        self.assertIn("no such path", json.loads(body)["error"])
        self.assertEqual(headers.get("access-control-allow-origin"), "*")

    def test_other_methods_are_405(self):
        for method in ("POST", "PUT", "DELETE", "OPTIONS"):
            status, headers, body = self.get("t3d", su.probe_path("- - w 3 3"), method)
            self.assertEqual(status, 405, method)
            self.assertEqual(headers.get("allow"), "GET, HEAD")
            self.assertIn("error", json.loads(body))
        status, headers, body = self.get("t3d", su.probe_path("- - w 3 3"), "HEAD")
        self.assertEqual((status, body), (200, b""))

    def test_over_long_requests_are_refused(self):
        status, _, body = self.get("t3d", su.probe_path("a1," * 600 + " - w"))
        self.assertEqual(status, 414)
        self.assertIn("too long", json.loads(body)["error"])
        # past the connection's memory limit libmicrohttpd refuses the request line itself
        status, _, _ = self.get("t3d", "/api/probe?position=" + "a" * 40000)
        self.assertEqual(status, 414)
        # and the server is still there
        self.assertEqual(self.probe("t3d", "- - w 3 3")["wdl"], "win")

    # ---- concurrency ---------------------------------------------------

    def test_concurrent_requests_agree_with_single_ones(self):
        # positions of six from a seeded random walk, answered one by one first
        rng = random.Random(7)
        port = self.servers["t6"].port
        positions, pos = [], "- - w 6 6"
        while len(positions) < 60:
            status, a = su.get_json(port, su.probe_path(pos))
            self.assertEqual(status, 200)
            positions.append(pos)
            pos = rng.choice(a["moves"])["after"] if a["moves"] else "- - w 6 6"
        single = {p: su.request(port, su.probe_path(p, 10))[2] for p in positions}
        errors, seen = [], []

        def client(seed):
            r = random.Random(seed)
            conn = su.http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                for _ in range(80):
                    p = r.choice(positions)
                    status, _, body = su.request(port, su.probe_path(p, 10), conn=conn)
                    if status != 200 or body != single[p]:
                        errors.append((p, status, body[:200]))
                    seen.append(p)
            except Exception as e:  # a dropped connection is a failure too
                errors.append(("exception", repr(e)))
            finally:
                conn.close()

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(seen), 8 * 80)

    # ---- the other endpoints -------------------------------------------

    def test_stats_equal_stats_json(self):
        for name, tables in (("t3d", T3D), ("t6", T6)):
            status, a = su.get_json(self.servers[name].port, "/api/stats")
            self.assertEqual(status, 200)
            ref = json.loads(subprocess.run([PROBE, "stats", "-t", tables, "--json"],
                                            capture_output=True, text=True, check=True).stdout)
            self.assertEqual(a["sectors"], ref)
            self.assertEqual(a["unusable"], [])
        status, a = su.get_json(self.servers["t6"].port, "/api/stats")
        self.assertEqual(len(a["sectors"]), 77)  # six --start: 77 sectors
        self.assertEqual(a["variant"], "six")

    def test_variant(self):
        status, v = su.get_json(self.servers["t3d"].port, "/api/variant")
        self.assertEqual(status, 200)
        self.assertEqual((v["name"], v["stones"], v["fly"]), ("three-diag", 3, 0))
        self.assertEqual(len(v["points"]), 9)
        self.assertEqual(len(v["lines"]), 8)
        self.assertEqual(len(v["mills"]), 8)
        self.assertIn(["a1", "b2", "c3"], v["lines"])
        self.assertEqual({(p["name"], p["x"], p["y"]) for p in v["points"] if p["name"] in ("a1", "c3")},
                         {("a1", 0, 0), ("c3", 2, 2)})
        self.assertTrue(v["first_mill_wins"])
        self.assertEqual(v["removal"], "any")
        self.assertFalse(v["fen"])
        self.assertEqual(v["start"], "- - w 3 3")
        status, v = su.get_json(self.servers["t9"].port, "/api/variant")
        self.assertEqual((v["name"], len(v["points"]), len(v["mills"]), v["fly"]), ("nine", 24, 16, 3))
        self.assertTrue(v["fen"])
        self.assertEqual(v["removal"], "standard")
        # the start the tables hold: six solved from 4 v 4 in hand; movement-only
        # tables keep the variant's own start (the page then asks for a position)
        status, v = su.get_json(self.servers["t644"].port, "/api/variant")
        self.assertEqual(v["start"], "- - w 4 4")
        status, p = su.get_json(self.servers["t644"].port, su.probe_path(v["start"]))
        self.assertEqual(status, 200)
        self.assertEqual(p["wdl"], "draw")
        status, v = su.get_json(self.servers["t9"].port, "/api/variant")
        self.assertEqual(v["start"], "- - w 9 9")
        status, s6 = su.get_json(self.servers["t6"].port, "/api/variant")
        status, a = su.get_json(self.servers["t6"].port, "/api/stats")
        self.assertEqual(s6["fingerprint"], a["fingerprint"])

    def test_page(self):
        for path in ("/", "/index.html"):
            status, headers, body = self.get("t3d", path)
            self.assertEqual(status, 200)
            self.assertTrue(headers["content-type"].startswith("text/html"))
            page = body.decode("utf-8")
            self.assertIn("<svg", page)
            self.assertIn("/api/probe", page)
            self.assertIn("/api/variant", page)
            # self-contained: no scripts, styles or images from elsewhere
            self.assertNotRegex(page, r"(src|href)\s*=\s*[\"']?(https?:)?//")
            self.assertNotIn("@import", page)


class ServeLifecycleTest(unittest.TestCase):
    """Starting, usage errors and stopping by each signal."""

    def setUp(self):
        if not PROBE or not TOP:
            self.skipTest("MMTB_PROBE and MMTB_SERVE_TABLES must be set")

    def test_stops_cleanly_on_sigterm_and_sigint(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            s = su.Server(PROBE, T3D, threads=2, extra=("--verbose",))
            status, _, _ = su.request(s.port, su.probe_path("- - w 3 3"))
            self.assertEqual(status, 200)
            code, err = s.stop(sig)
            self.assertEqual(code, 0, err)
            self.assertFalse(sanitizer_report(err), err)
            # --verbose: one line for the request
            self.assertIn("GET /api/probe -> 200", err)

    def test_quiet_without_verbose(self):
        s = su.Server(PROBE, T3D, threads=1)
        su.request(s.port, su.probe_path("- - w 3 3"))
        su.request(s.port, "/nothing")
        code, err = s.stop()
        self.assertEqual((code, err), (0, ""))

    def test_usage_and_table_errors(self):
        def run(*args):
            return subprocess.run([PROBE, "serve", *args], capture_output=True, text=True,
                                  timeout=30)
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        for word in ("/api/probe", "/api/stats", "/api/variant", "--port", "--bind", "--threads"):
            self.assertIn(word, r.stdout)
        self.assertEqual(run().returncode, 1)  # no -t
        self.assertEqual(run("-t", T3D, "--port", "70000").returncode, 1)
        self.assertEqual(run("-t", T3D, "--bind", "localhost:x").returncode, 1)
        self.assertEqual(run("-t", T3D, "--threads", "0").returncode, 1)
        r = run("-t", os.path.join(TOP, "no-such-tables"), "--port", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot open tables", r.stderr)

    def test_port_in_use_is_an_error(self):
        s = su.Server(PROBE, T3D, threads=1)
        try:
            r = subprocess.run([PROBE, "serve", "-t", T3D, "--port", str(s.port)],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 1)
            self.assertIn("cannot listen", r.stderr)
        finally:
            self.assertEqual(s.stop()[0], 0)


if __name__ == "__main__":
    unittest.main()
