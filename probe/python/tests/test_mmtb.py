"""Tests of the mmtb Python module against small tables made for the run.

Environment: MMTB_GEN, the mmtb-gen that makes the tables (required unless
MMTB_TEST_TABLES names a directory holding three-diag/, six/ and nine3/
already); MMTB_LIBRARY, the libmmtb.so under test; MMTB_VERSION, the
project version the module and library must both carry.  Run by ctest
(tests/consumers.cmake), or by hand:
    MMTB_GEN=build/gen/mmtb-gen MMTB_LIBRARY=build/libmmtb.so \\
        PYTHONPATH=probe/python python3 -m unittest discover -s probe/python/tests
Known answers: three-diag's start is a first-player win, only by b2; six's
start is a draw; Gasser's Fig. 9 (nine, Black to move) is a loss in 26.
"""

import os
import random
import shutil
import subprocess
import tempfile
import threading
import unittest

import mmtb

TABLES = None
_TMP = None


def setUpModule():
    """Make the tables once for every test of the module."""
    global TABLES, _TMP
    ready = os.environ.get("MMTB_TEST_TABLES")
    if ready:
        TABLES = ready
        return
    gen = os.environ.get("MMTB_GEN")
    if not gen:
        raise RuntimeError("set MMTB_GEN to mmtb-gen (or MMTB_TEST_TABLES to ready tables)")
    _TMP = tempfile.mkdtemp(prefix="mmtb-python-")
    TABLES = _TMP
    for name, args in (("three-diag", ["-v", "three-diag", "--start"]),
                       ("six", ["-v", "six", "--start"]),
                       ("nine3", ["-v", "nine", "--max-stones", "3"])):
        subprocess.run([gen] + args + ["-o", os.path.join(_TMP, name)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def tearDownModule():
    if _TMP:
        shutil.rmtree(_TMP, ignore_errors=True)


def tables(name, **kw):
    return mmtb.open(os.path.join(TABLES, name), **kw)


def random_positions(t, count, seed):
    """Positions reached by random play from the start (restarting when a
    game ends), all distinct: the inputs of the thread test."""
    rng, seen, out, pos = random.Random(seed), set(), [], t.start
    while len(out) < count:
        if pos not in seen:
            seen.add(pos)
            out.append(pos)
        moves = t.moves(pos)
        pos = t.play(pos, rng.choice(moves)) if moves else t.start
    return out


class TestVersion(unittest.TestCase):
    def test_versions_agree(self):
        want = os.environ.get("MMTB_VERSION")
        if want:
            self.assertEqual(mmtb.__version__, want)
        self.assertEqual(mmtb.library_version(), mmtb.__version__)


class TestKnownAnswers(unittest.TestCase):
    def test_three_diag_start_is_a_win_only_by_b2(self):
        with tables("three-diag") as t:
            self.assertEqual(t.variant, "three-diag")
            r = t.probe(t.start)
            self.assertEqual(r.position, "- - w 3 3")
            self.assertEqual(r.wdl, mmtb.WIN)
            self.assertGreater(r.dtw, 0)
            self.assertEqual(r.best, ["b2"])
            self.assertEqual(r.moves[0], mmtb.ScoredMove("b2", mmtb.WIN, r.dtw))
            # nine first placements; the value is the first move's value
            self.assertEqual(sorted(m.move for m in r.moves), sorted(t.moves(t.start)))
            self.assertEqual(len(r.moves), 9)
            self.assertTrue(all(m.wdl != mmtb.WIN for m in r.moves[1:]))
            self.assertEqual(t.value("- - w 3 3"), r.value)
            self.assertEqual(t.wdl("- - w 3 3"), mmtb.WIN)

    def test_three_diag_pv_ends_in_a_loss_after_dtw_plies(self):
        with tables("three-diag") as t:
            v = t.value(t.start)
            pv = t.pv(t.start)
            self.assertEqual(pv[0], "b2")
            self.assertEqual(len(pv), v.dtw)
            pos = t.start
            for i, m in enumerate(pv):
                # along the PV, the side to move wins at odd distance from the end
                want = mmtb.WIN if (len(pv) - i) % 2 else mmtb.LOSS
                self.assertEqual(t.value(pos), (want, len(pv) - i))
                pos = t.play(pos, m)
            self.assertEqual(t.terminal(pos), mmtb.LOSS)
            self.assertEqual(t.value(pos), (mmtb.LOSS, 0))
            self.assertEqual(t.probe(pos).moves, [])

    def test_six_start_is_a_draw(self):
        with tables("six") as t:
            r = t.probe("- - w 6 6")
            self.assertEqual((r.wdl, r.dtw), (mmtb.DRAW, None))
            self.assertEqual(r.moves[0].wdl, mmtb.DRAW)
            self.assertTrue(all(m.wdl != mmtb.WIN for m in r.moves))
            self.assertEqual(len(t.pv(t.start)), 20)  # a draw plays on to the cap
            self.assertEqual(len(t.pv(t.start, max_moves=5)), 5)
            self.assertIsNone(r.fen)  # 16 points: no Sanmill FEN

    def test_gasser_fig9_in_both_notations(self):
        with tables("nine3") as t:
            simple = "d7,g7,g1 a4,g4,d5 b"
            fen = "@*******/********/OO@O**@* b m s 3 0 3 0 0 0 0 0 0 0 0 0 1"
            self.assertEqual(t.value(simple), (mmtb.LOSS, 26))
            self.assertEqual(t.value(fen), (mmtb.LOSS, 26))
            self.assertEqual(t.normalize(fen), t.normalize(simple))
            self.assertEqual(t.normalize(t.fen(simple)), t.normalize(simple))
            r = t.probe(fen)
            self.assertTrue(all(m.wdl == mmtb.LOSS for m in r.moves))
            self.assertEqual(r.moves[0].dtw, 26)


class TestStats(unittest.TestCase):
    def test_counts_add_up(self):
        with tables("three-diag") as t:
            s = t.stats()
            self.assertEqual(s["variant"], "three-diag")
            self.assertEqual(s["sectors"], len(s["per_sector"]))
            self.assertEqual(s["present"], s["sectors"])
            tot = s["total"]
            self.assertEqual(tot["wins"] + tot["draws"] + tot["losses"], tot["canonical"])
            self.assertEqual(tot["wins"], sum(x["wins"] for x in s["per_sector"]))
            names = [x["name"] for x in s["per_sector"]]
            self.assertIn("0-0-3-3", names)  # the start's sector
            self.assertIn("3-3", names)
            for x in s["per_sector"]:
                self.assertTrue(os.path.exists(os.path.join(t.path, x["name"] + ".mmtb")))
            self.assertGreaterEqual(tot["max_win"], t.value(t.start).dtw)


class TestErrors(unittest.TestCase):
    def test_malformed_position_raises_the_librarys_message(self):
        with tables("three-diag") as t:
            with self.assertRaises(mmtb.ParseError) as cm:
                t.probe("zz - w 3 3")
            e = cm.exception
            self.assertEqual(e.code, -8)  # MMTB_ERR_PARSE, pinned in mmtb_common.h
            self.assertIn("zz", e.message)  # the library names the offending square
            self.assertIn(mmtb.strerror(-8), str(e))
            self.assertIsInstance(e, ValueError)
            for bad in ("", "a1 a1 w", "- - x", "a1,b1,c1,a2 - w"):
                with self.assertRaises(mmtb.ParseError, msg=bad):
                    t.value(bad)

    def test_missing_directory_and_illegal_move(self):
        with self.assertRaises(mmtb.Error) as cm:
            mmtb.open(os.path.join(TABLES, "no-such-dir"))
        self.assertLess(cm.exception.code, 0)
        self.assertIn("no-such-dir", cm.exception.message)
        with tables("three-diag") as t:
            with self.assertRaises(mmtb.InvalidError):
                t.play(t.start, "b2-b3")

    def test_position_outside_the_tables(self):
        with tables("nine3") as t:  # only 3 v 3 is solved
            with self.assertRaises(mmtb.NotInGameError) as cm:
                t.value("a7,d7,g7,a1 a4,g4,d5 w")
            self.assertEqual(cm.exception.code, -9)

    def test_closed_tables(self):
        t = tables("three-diag")
        t.value(t.start)
        t.close()
        t.close()
        with self.assertRaises(ValueError):
            t.value(t.start)


class TestThreads(unittest.TestCase):
    def test_threads_agree_with_one_thread(self):
        # a small cache makes every thread decompress blocks all the time
        with tables("six", cache_bytes=1 << 16) as t:
            positions = random_positions(t, 400, seed=20)
            want = [t.probe(p) for p in positions]
            results, errors = {}, []

            def work(k):
                try:
                    order = list(range(len(positions)))
                    random.Random(k).shuffle(order)
                    results[k] = {i: t.probe(positions[i]) for i in order}
                except Exception as e:  # reported by the main thread
                    errors.append(e)

            threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            self.assertEqual(errors, [])
            for k in range(4):
                self.assertEqual([results[k][i] for i in range(len(positions))], want)
            self.assertGreater(len({r.wdl for r in want}), 1)  # not all one value


if __name__ == "__main__":
    unittest.main()
