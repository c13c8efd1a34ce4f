"""mmtb - probe solved Morris games (Nine Men's Morris and its relatives).

A thin ctypes layer over libmmtb.so, Python's standard library only:

    import mmtb
    with mmtb.open("tables/six") as tables:
        r = tables.probe("- - w 6 6")      # either notation: simple form or Sanmill FEN
        r.wdl, r.dtw                        # mmtb.DRAW, None
        [(m.move, m.wdl, m.dtw) for m in r.moves]   # best first
        tables.pv("d6 - b 5 6")             # a principal variation, as move tokens
        tables.stats()                      # per-sector counts, as dicts

Values are for the side to move: wdl is mmtb.WIN (1), mmtb.DRAW (0) or
mmtb.LOSS (-1); dtw is the depth to win in plies (until the end of the
game), None for a draw.  Errors raise mmtb.Error
(or a subclass per status code) carrying the library's code and message.

Threads: one Tables object may be used from any number of threads at once;
each thread gets its own probing context (libmmtb's mmtb_ctx) on first use,
and the library runs without the GIL, so probes from several threads run in
parallel.  close() must not race with probes in other threads.

The library is looked for in this order: the file named by the environment
variable MMTB_LIBRARY; a libmmtb.so* next to this file; the system loader
(libmmtb.so.MAJOR.MINOR, libmmtb.so, ctypes.util.find_library).
"""

import ctypes
import ctypes.util
import glob
import os
import threading
from collections import namedtuple

__version__ = "0.1.0"
__all__ = ["open", "Tables", "Probe", "Value", "ScoredMove", "Error", "ParseError",
           "InvalidError", "NotInGameError", "MissingError", "library_version",
           "library_path", "strerror", "WIN", "DRAW", "LOSS"]

WIN, DRAW, LOSS = 1, 0, -1
_MAX_MOVES = 2048  # MMTB_MAX_MOVES
_TEXT_MAX = 640    # MMTB_TEXT_MAX
_OPEN_VERIFY = 1   # MMTB_OPEN_VERIFY
_NOT_TERMINAL = 2  # MMTB_NOT_TERMINAL

# ---------------------------------------------------------------------------
# The C structures of mmtb.h / mmtb_common.h (natural alignment, as the C
# compiler lays them out on every platform the project builds on).
# ---------------------------------------------------------------------------


class _Pos(ctypes.Structure):
    _fields_ = [("stones", ctypes.c_uint32 * 2), ("hand", ctypes.c_uint8 * 2),
                ("side", ctypes.c_uint8), ("remove", ctypes.c_uint8),
                ("ban_from", ctypes.c_int8), ("ban_to", ctypes.c_int8)]


class _Move(ctypes.Structure):
    _fields_ = [("from_", ctypes.c_int8), ("to", ctypes.c_int8), ("remove", ctypes.c_int8)]


class _Value(ctypes.Structure):
    _fields_ = [("wdl", ctypes.c_int), ("dtw", ctypes.c_int)]


class _MoveValue(ctypes.Structure):
    _fields_ = [("move", _Move), ("value", _Value)]


class _Sector(ctypes.Structure):
    _fields_ = [("w", ctypes.c_uint8), ("b", ctypes.c_uint8),
                ("w_hand", ctypes.c_uint8), ("b_hand", ctypes.c_uint8)]


class _SectorStats(ctypes.Structure):
    _fields_ = [("slots", ctypes.c_uint64), ("canonical", ctypes.c_uint64),
                ("wins", ctypes.c_uint64), ("draws", ctypes.c_uint64),
                ("losses", ctypes.c_uint64), ("max_win", ctypes.c_int32),
                ("max_loss", ctypes.c_int32)]


class _SectorInfo(ctypes.Structure):
    _fields_ = [("sector", _Sector), ("status", ctypes.c_int), ("stats", _SectorStats),
                ("file_bytes", ctypes.c_uint64), ("wdl_bytes", ctypes.c_uint64),
                ("dtw_bytes", ctypes.c_uint64), ("dtw_width", ctypes.c_int),
                ("detail", ctypes.c_char * 160)]


class _TbOpts(ctypes.Structure):
    _fields_ = [("cache_bytes", ctypes.c_size_t), ("flags", ctypes.c_uint),
                ("err", ctypes.c_char_p), ("errlen", ctypes.c_size_t)]


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class Error(Exception):
    """A libmmtb failure: code is the library's status (a negative int),
    message its text (the library's detailed message when it gave one,
    else mmtb_strerror(code))."""

    def __init__(self, code, message):
        super().__init__("%s (%s, %d)" % (message, strerror(code), code))
        self.code = code
        self.message = message


class InvalidError(Error):
    """MMTB_ERR_INVALID: bad argument, or a position or move against the rules."""


class MissingError(Error):
    """MMTB_ERR_MISSING: the sector file this needs is not in the directory."""


class ParseError(Error, ValueError):
    """MMTB_ERR_PARSE: malformed position or move text."""


class NotInGameError(Error):
    """MMTB_ERR_NOT_IN_GAME: the position lies outside the solved game."""


_ERRORS = {-1: InvalidError, -5: MissingError, -8: ParseError, -9: NotInGameError}


def _raise(code, message=None):
    raise _ERRORS.get(code, Error)(code, message or strerror(code))


# ---------------------------------------------------------------------------
# Loading the library
# ---------------------------------------------------------------------------

_lib = None
_lib_path = None
_lib_lock = threading.Lock()


def _candidates():
    """Where libmmtb.so may be, in the order of the module docstring."""
    env = os.environ.get("MMTB_LIBRARY")
    if env:
        return [env]  # an explicit choice is never second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(glob.glob(os.path.join(here, "libmmtb.so*")))
    major, minor = __version__.split(".")[:2]
    soname = "libmmtb.so.%s.%s" % (major, minor) if major == "0" else "libmmtb.so." + major
    found += [soname, "libmmtb.so"]
    name = ctypes.util.find_library("mmtb")
    if name:
        found.append(name)
    return found


def _declare(lib):
    """Argument and result types of every function used here."""
    P, c_int, c_char_p, c_size_t = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t
    pos_p, move_p = ctypes.POINTER(_Pos), ctypes.POINTER(_Move)
    sig = {
        "mmtb_version": (c_char_p, []),
        "mmtb_strerror": (c_char_p, [c_int]),
        "mmtb_tb_open": (c_int, [ctypes.POINTER(P), c_char_p, ctypes.POINTER(_TbOpts)]),
        "mmtb_tb_close": (None, [P]),
        "mmtb_tb_variant": (P, [P]),
        "mmtb_tb_sector_count": (c_int, [P]),
        "mmtb_tb_sector_info": (c_int, [P, c_int, ctypes.POINTER(_SectorInfo)]),
        "mmtb_ctx_create": (c_int, [ctypes.POINTER(P), P, c_size_t]),
        "mmtb_ctx_free": (None, [P]),
        "mmtb_probe": (c_int, [P, pos_p, ctypes.POINTER(_Value)]),
        "mmtb_probe_wdl": (c_int, [P, pos_p, ctypes.POINTER(c_int)]),
        "mmtb_probe_moves": (c_int, [P, pos_p, ctypes.POINTER(_MoveValue), c_int]),
        "mmtb_probe_pv": (c_int, [P, pos_p, move_p, c_int]),
        "mmtb_variant_name": (c_char_p, [P]),
        "mmtb_variant_title": (c_char_p, [P]),
        "mmtb_pos_parse": (c_int, [P, c_char_p, pos_p, c_char_p, c_size_t]),
        "mmtb_pos_format": (c_int, [P, pos_p, c_char_p, c_size_t]),
        "mmtb_pos_format_fen": (c_int, [P, pos_p, c_char_p, c_size_t]),
        "mmtb_fen_supported": (ctypes.c_bool, [P]),
        "mmtb_move_format": (c_int, [P, move_p, c_char_p, c_size_t]),
        "mmtb_pos_start": (None, [P, pos_p]),
        "mmtb_gen_moves": (c_int, [P, pos_p, move_p]),
        "mmtb_pos_apply": (None, [P, pos_p, move_p, pos_p]),
        "mmtb_pos_terminal": (c_int, [P, pos_p]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


def _load():
    """The loaded library (once per process); ImportError when none fits."""
    global _lib, _lib_path
    with _lib_lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            try:
                lib = ctypes.CDLL(path)
                _declare(lib)
            except (OSError, AttributeError) as e:
                tried.append("%s: %s" % (path, e))
                continue
            have = lib.mmtb_version().decode()
            if have.split(".")[:2] != __version__.split(".")[:2]:
                tried.append("%s: version %s, this module needs %s" % (path, have, __version__))
                continue
            _lib, _lib_path = lib, path
            return lib
        raise ImportError("libmmtb.so not found or not usable; set MMTB_LIBRARY to its path. "
                          "Tried: " + "; ".join(tried))


def library_version():
    """The version string of the loaded libmmtb (mmtb_version())."""
    return _load().mmtb_version().decode()


def library_path():
    """The path or name libmmtb was loaded from."""
    _load()
    return _lib_path


def strerror(code):
    """The library's text for a status code (mmtb_strerror)."""
    return _load().mmtb_strerror(code).decode()


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------

Value = namedtuple("Value", "wdl dtw")
Value.__doc__ = "A value for the side to move: wdl WIN/DRAW/LOSS, dtw in plies (None: draw)."
ScoredMove = namedtuple("ScoredMove", "move wdl dtw")
ScoredMove.__doc__ = "A legal move and its value for the side that makes it."


class Probe(namedtuple("Probe", "position fen wdl dtw moves")):
    """The answer to Tables.probe: the position in the simple form (fen:
    Sanmill FEN, None on boards without FEN), its value for the side to move
    and every legal move as a ScoredMove, best first."""

    __slots__ = ()

    @property
    def value(self):
        return Value(self.wdl, self.dtw)

    @property
    def best(self):
        """The moves that keep the value: those scored as the first."""
        if not self.moves:
            return []
        first = self.moves[0]
        return [m.move for m in self.moves if (m.wdl, m.dtw) == (first.wdl, first.dtw)]


def _value(wdl, dtw):
    return Value(wdl, None if wdl == DRAW else dtw)


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------


class _Handle:
    """The mmtb_tb and the contexts created on it.  Contexts refer to the
    handle, never to the Tables, so dropping the Tables frees the contexts
    first and the handle last by reference counting alone (no cycle)."""

    def __init__(self, lib, tb, cache):
        self.lib, self.tb, self.cache = lib, tb, cache
        self.ctxs = set()  # addresses of the live mmtb_ctx
        self.lock = threading.Lock()

    def close(self):
        with self.lock:
            if not self.tb:
                return
            for addr in self.ctxs:  # libmmtb: every context before the handle
                self.lib.mmtb_ctx_free(addr)
            self.ctxs.clear()
            self.lib.mmtb_tb_close(self.tb)
            self.tb = None

    def __del__(self):
        self.close()


class _Ctx:
    """One mmtb_ctx, used by one thread (kept in the Tables' thread-local
    storage); freed when that storage goes away or when the handle closes."""

    def __init__(self, handle):
        self.handle = handle
        ptr = ctypes.c_void_p()
        with handle.lock:
            if not handle.tb:
                raise ValueError("the tables are closed")
            rc = handle.lib.mmtb_ctx_create(ctypes.byref(ptr), handle.tb, handle.cache)
            if rc != 0:
                _raise(rc)
            handle.ctxs.add(ptr.value)
        self.ptr = ptr.value
        self.moves = (_MoveValue * _MAX_MOVES)()  # scratch, per thread
        self.pv = (_Move * 1024)()

    def alive(self):
        return self.ptr in self.handle.ctxs

    def __del__(self):
        h = self.handle
        if not hasattr(self, "ptr"):  # __init__ failed
            return
        with h.lock:
            if self.ptr in h.ctxs:
                h.ctxs.discard(self.ptr)
                h.lib.mmtb_ctx_free(self.ptr)


class Tables:
    """An open table directory (libmmtb's mmtb_tb).  Use mmtb.open(path)."""

    def __init__(self, path, cache_bytes=0, verify=False):
        self._lib = lib = _load()
        self._local = threading.local()
        tb = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        opts = _TbOpts(cache_bytes, _OPEN_VERIFY if verify else 0,
                       ctypes.cast(err, ctypes.c_char_p), len(err))
        rc = lib.mmtb_tb_open(ctypes.byref(tb), os.fsencode(path), ctypes.byref(opts))
        if rc != 0:
            _raise(rc, err.value.decode(errors="replace"))
        self._h = _Handle(lib, tb.value, cache_bytes)
        self._v = lib.mmtb_tb_variant(tb.value)
        self.path = path
        self.variant = lib.mmtb_variant_name(self._var()).decode()
        self.title = lib.mmtb_variant_title(self._var()).decode()
        self._fen = bool(lib.mmtb_fen_supported(self._var()))

    # -- lifecycle ----------------------------------------------------------

    def close(self):
        """Free every thread's context and close the handle (idempotent).
        No other thread may be probing meanwhile."""
        self._h.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<mmtb.Tables %r variant=%s>" % (self.path, self.variant)

    def _ctx(self):
        """This thread's context, created on first use."""
        c = getattr(self._local, "ctx", None)
        if c is None or not c.alive():
            c = self._local.ctx = _Ctx(self._h)
        return c

    def _handle_tb(self):
        if not self._h.tb:
            raise ValueError("the tables are closed")
        return self._h.tb

    def _var(self):
        """The variant (owned by the handle: gone once it is closed)."""
        if not self._h.tb:
            raise ValueError("the tables are closed")
        return self._v

    # -- text ---------------------------------------------------------------

    def _parse(self, position):
        p = _Pos()
        err = ctypes.create_string_buffer(256)
        rc = self._lib.mmtb_pos_parse(self._var(), position.encode(), ctypes.byref(p), err, len(err))
        if rc != 0:
            _raise(rc, err.value.decode(errors="replace"))
        return p

    def _format(self, p):
        buf = ctypes.create_string_buffer(_TEXT_MAX)
        self._lib.mmtb_pos_format(self._var(), ctypes.byref(p), buf, len(buf))
        return buf.value.decode()

    def _format_fen(self, p):
        if not self._fen:
            return None
        buf = ctypes.create_string_buffer(_TEXT_MAX)
        self._lib.mmtb_pos_format_fen(self._var(), ctypes.byref(p), buf, len(buf))
        return buf.value.decode()

    def _move_text(self, m):
        buf = ctypes.create_string_buffer(_TEXT_MAX)
        self._lib.mmtb_move_format(self._var(), ctypes.byref(m), buf, len(buf))
        return buf.value.decode()

    def _legal(self, p):
        out = (_Move * _MAX_MOVES)()
        n = self._lib.mmtb_gen_moves(self._var(), ctypes.byref(p), out)
        if n < 0:
            _raise(n)
        return out[:n]

    def normalize(self, position):
        """The position in the simple form (either notation accepted)."""
        return self._format(self._parse(position))

    def fen(self, position):
        """The position as Sanmill FEN; None on boards without FEN."""
        return self._format_fen(self._parse(position))

    @property
    def start(self):
        """The variant's start position (empty board, all stones in hand)."""
        p = _Pos()
        self._lib.mmtb_pos_start(self._var(), ctypes.byref(p))
        return self._format(p)

    def moves(self, position):
        """The legal moves of a position (the rules, no table), as tokens."""
        return [self._move_text(m) for m in self._legal(self._parse(position))]

    def play(self, position, move):
        """The position after a legal move (a token such as 'd6-d5xb4').
        InvalidError when the move is not legal there."""
        p = self._parse(position)
        for m in self._legal(p):
            if self._move_text(m) == move:
                q = _Pos()
                self._lib.mmtb_pos_apply(self._var(), ctypes.byref(p), ctypes.byref(m), ctypes.byref(q))
                return self._format(q)
        raise InvalidError(-1, "%s is not a legal move in %s" % (move, self._format(p)))

    def terminal(self, position):
        """WIN/DRAW/LOSS-style verdict of the rules when the game is over in
        the position (LOSS or DRAW for the side to move), else None."""
        r = self._lib.mmtb_pos_terminal(self._var(), ctypes.byref(self._parse(position)))
        return None if r == _NOT_TERMINAL else r

    # -- probes -------------------------------------------------------------

    def value(self, position):
        """The position's Value (wdl, dtw) for the side to move."""
        c, p, v = self._ctx(), self._parse(position), _Value()
        rc = self._lib.mmtb_probe(c.ptr, ctypes.byref(p), ctypes.byref(v))
        if rc != 0:
            _raise(rc)
        return _value(v.wdl, v.dtw)

    def wdl(self, position):
        """WIN, DRAW or LOSS for the side to move (never reads depths)."""
        c, p, w = self._ctx(), self._parse(position), ctypes.c_int()
        rc = self._lib.mmtb_probe_wdl(c.ptr, ctypes.byref(p), ctypes.byref(w))
        if rc != 0:
            _raise(rc)
        return w.value

    def probe(self, position):
        """The position's value and every legal move with its value, best
        first (wins by shortest dtw, draws, losses by longest dtw)."""
        c, p, v = self._ctx(), self._parse(position), _Value()
        rc = self._lib.mmtb_probe(c.ptr, ctypes.byref(p), ctypes.byref(v))
        if rc != 0:
            _raise(rc)
        n = self._lib.mmtb_probe_moves(c.ptr, ctypes.byref(p), c.moves, _MAX_MOVES)
        if n < 0:
            _raise(n)
        moves = [ScoredMove(self._move_text(mv.move), *_value(mv.value.wdl, mv.value.dtw))
                 for mv in c.moves[:n]]
        return Probe(self._format(p), self._format_fen(p), *_value(v.wdl, v.dtw), moves)

    def pv(self, position, max_moves=None):
        """A principal variation from the position: best moves for both
        sides until the game ends, as move tokens.  Drawn positions play on
        forever, so at most max_moves (default 20 for a draw, 1000 else)."""
        c, p = self._ctx(), self._parse(position)
        if max_moves is None:
            max_moves = 20 if self.wdl(position) == DRAW else 1000
        buf = c.pv if max_moves <= len(c.pv) else (_Move * max_moves)()
        n = self._lib.mmtb_probe_pv(c.ptr, ctypes.byref(p), buf, max_moves)
        if n < 0:
            _raise(n)
        return [self._move_text(m) for m in buf[:n]]

    # -- statistics ---------------------------------------------------------

    def sectors(self):
        """The solved game's sectors, in manifest order, each a dict: name
        (as the file is named, '3-3' or '0-0-3-3'), status (0 or the code
        why the file is unusable), and when usable the counts over canonical
        positions (wins, draws, losses, canonical, slots), the longest win
        and loss in plies (max_win, max_loss; -1: none) and file_bytes."""
        out, info = [], _SectorInfo()
        for i in range(self._lib.mmtb_tb_sector_count(self._handle_tb())):
            rc = self._lib.mmtb_tb_sector_info(self._handle_tb(), i, ctypes.byref(info))
            if rc != 0:
                _raise(rc)
            s, st = info.sector, info.stats
            name = ("%d-%d" % (s.w, s.b) if not (s.w_hand or s.b_hand)
                    else "%d-%d-%d-%d" % (s.w, s.b, s.w_hand, s.b_hand))
            d = {"name": name, "status": info.status}
            if info.status == 0:
                d.update(slots=st.slots, canonical=st.canonical, wins=st.wins, draws=st.draws,
                         losses=st.losses, max_win=st.max_win, max_loss=st.max_loss,
                         file_bytes=info.file_bytes)
            else:
                d["detail"] = info.detail.decode(errors="replace")
            out.append(d)
        return out

    def stats(self):
        """The whole table set: variant, title, sector count, how many
        sector files are usable, totals over the usable ones (canonical,
        wins, draws, losses, file_bytes, longest win and loss) and the
        per-sector list of sectors()."""
        secs = self.sectors()
        ok = [s for s in secs if s["status"] == 0]
        total = {k: sum(s[k] for s in ok) for k in ("canonical", "wins", "draws", "losses",
                                                    "file_bytes")}
        total["max_win"] = max([s["max_win"] for s in ok], default=-1)
        total["max_loss"] = max([s["max_loss"] for s in ok], default=-1)
        return {"variant": self.variant, "title": self.title, "sectors": len(secs),
                "present": len(ok), "total": total, "per_sector": secs}


def open(path, cache_bytes=0, verify=False):  # noqa: A001 - the module's entry point
    """Open a table directory (made by mmtb-gen) and return its Tables.
    cache_bytes bounds each thread's block cache (0: libmmtb's default,
    4 MiB); verify=True checks each sector file's whole-file checksum when
    it is first opened.  Raises Error (MissingError: no MANIFEST)."""
    return Tables(path, cache_bytes, verify)
