"""svg_test.py - the SVG pictures of mmtb-probe (board --svg, probe --svg,
stats --svg): well-formed XML, the board's points and segments as the
variant files define them, the marks and the move list equal to `mmtb-probe
probe --json`, and the histogram of nine's 3-3 sector equal to its published
counts.  Run by ctest as svg_pictures with MMTB_PROBE and MMTB_SERVE_TABLES
(the serve_tables fixture) set."""

import json
import os
import subprocess
import unittest
import xml.etree.ElementTree as ET

PROBE = os.environ.get("MMTB_PROBE", "")
TOP = os.environ.get("MMTB_SERVE_TABLES", "")
NS = "{http://www.w3.org/2000/svg}"


def run(*args):
    return subprocess.run([PROBE, *args], capture_output=True, text=True, timeout=300)


def svg(*args):
    r = run(*args)
    if r.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (args, r.returncode, r.stderr))
    root = ET.fromstring(r.stdout)  # raises on malformed XML
    assert root.tag == NS + "svg", root.tag
    return root


def cli_json(*args):
    r = run(*args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def marks(root):
    """{point: (wdl, label)} of the move marks."""
    out = {}
    for g in root.iter(NS + "g"):
        if g.get("class") == "mark":
            out[g.get("data-point")] = (g.get("data-wdl"), g.find(NS + "text").text)
    return out


def label(m):
    return "=" if m["wdl"] == "draw" else ("+" if m["wdl"] == "win" else "-") + str(m["dtw"])


class SvgTest(unittest.TestCase):
    def setUp(self):
        if not PROBE or not TOP:
            self.skipTest("MMTB_PROBE and MMTB_SERVE_TABLES must be set")

    def test_boards(self):
        # points and the segments between neighbours on a line, from the variant files:
        # nine 24 points, 16 lines of 3; six 16 points, 8 lines of 3 and 4 connectors;
        # three-diag 9 points, 8 lines of 3
        for variant, points, segments in (("nine", 24, 32), ("six", 16, 20), ("three-diag", 9, 16),
                                          ("nine-diag", 24, 40)):
            root = svg("board", "-v", variant, "--svg")
            self.assertEqual(len(list(root.iter(NS + "line"))), segments, variant)
            names = [t.text for t in root.iter(NS + "text") if t.text and len(t.text) <= 3]
            self.assertEqual(len(names), points, variant)
            self.assertEqual(len([c for c in root.iter(NS + "circle") if c.get("class") == "stone"]), 0)

    def test_board_with_a_position(self):
        root = svg("board", "-v", "six", "--svg", "a5,c5,e3 b2,d2 w 1 2")
        stones = {c.get("data-point"): c.get("data-colour")
                  for c in root.iter(NS + "circle") if c.get("class") == "stone"}
        self.assertEqual(stones, {"a5": "white", "c5": "white", "e3": "white",
                                  "b2": "black", "d2": "black"})
        self.assertEqual(run("board", "-v", "six", "--svg", "a5 zz w").returncode, 1)
        self.assertEqual(run("board", "-v", "six", "a5 b2 w").returncode, 1)  # only with --svg

    def test_three_diag_start(self):
        t = os.path.join(TOP, "three-diag")
        root = svg("probe", "-t", t, "--svg", "- - w 3 3")
        ref = cli_json("probe", "-t", t, "--json", "- - w 3 3")
        m = marks(root)
        # every empty point is a placement: its mark is that move's value
        self.assertEqual(m, {x["move"]: (x["wdl"], label(x)) for x in ref["moves"]})
        self.assertEqual([p for p, (w, _) in m.items() if w == "win"], ["b2"])
        listed = [g.get("data-wdl") for g in root.iter(NS + "g") if g.get("class") == "move"]
        self.assertEqual(listed, [x["wdl"] for x in ref["moves"]])
        caption = next(root.iter(NS + "text")).text
        self.assertIn("white to move, win in %d" % ref["dtw"], caption)

    def test_fig9(self):
        t = os.path.join(TOP, "nine-3")
        pos = "d7,g7,g1 a4,g4,d5 b"
        root = svg("probe", "-t", t, "--svg", pos)
        ref = cli_json("probe", "-t", t, "--json", pos)
        best = {}
        for x in ref["moves"]:  # best first: the first move from each stone is its best
            best.setdefault(x["move"].split("-")[0], x)
        self.assertEqual(marks(root), {p: (x["wdl"], label(x)) for p, x in best.items()})
        self.assertEqual(marks(root)["d5"], ("loss", "-26"))
        # one arrow per stone that moves
        self.assertEqual(len([g for g in root.iter(NS + "g") if g.get("class") == "arrow"]), 3)

    def test_stats_histogram_nine_3_3(self):
        t = os.path.join(TOP, "nine-3")
        root = svg("stats", "-t", t, "--svg")
        rects = [r for r in root.iter(NS + "rect") if r.get("class") in ("win", "loss")]
        wins = sum(int(r.get("data-count")) for r in rects if r.get("class") == "win")
        losses = sum(int(r.get("data-count")) for r in rects if r.get("class") == "loss")
        # the published counts of sector 3-3: 140,621 wins, 28,736 losses, longest 25 / 26
        self.assertEqual((wins, losses), (140621, 28736))
        self.assertEqual(max(int(r.get("data-dtw")) for r in rects if r.get("class") == "win"), 25)
        self.assertEqual(max(int(r.get("data-dtw")) for r in rects if r.get("class") == "loss"), 26)
        texts = {t.get("class"): "".join(t.itertext()) for t in root.iter(NS + "text") if t.get("class")}
        self.assertIn("longest win: 25 plies", texts["longest-win"])
        self.assertIn("longest loss: 26 plies", texts["longest-loss"])

    def test_stats_equal_stats_json(self):
        for name in ("six", "three-diag"):
            t = os.path.join(TOP, name)
            root = svg("stats", "-t", t, "--svg")
            ref = cli_json("stats", "-t", t, "--json")
            rows = [g for g in root.iter(NS + "g") if g.get("class") == "sector"]
            self.assertEqual([(int(g.get("data-wins")), int(g.get("data-draws")), int(g.get("data-losses")))
                              for g in rows], [(s["wins"], s["draws"], s["losses"]) for s in ref])
            hist = [r for r in root.iter(NS + "rect") if r.get("class") in ("win", "loss")]
            self.assertEqual(sum(int(r.get("data-count")) for r in hist if r.get("class") == "win"),
                             sum(s["wins"] for s in ref))
            self.assertEqual(sum(int(r.get("data-count")) for r in hist if r.get("class") == "loss"),
                             sum(s["losses"] for s in ref))

    def test_usage_errors(self):
        t = os.path.join(TOP, "three-diag")
        self.assertEqual(run("probe", "-t", t, "--svg").returncode, 1)
        self.assertEqual(run("probe", "-t", t, "--svg", "- - w 3 3", "b2 - b 2 3").returncode, 1)
        self.assertEqual(run("probe", "-t", t, "--svg", "--json", "- - w 3 3").returncode, 1)
        self.assertEqual(run("probe", "-t", t, "--svg", "b2 - x").returncode, 1)
        self.assertEqual(run("stats", "-t", t, "--svg", "--json").returncode, 1)


if __name__ == "__main__":
    unittest.main()
