"""PyMahjongGB 1.4.0 as a test oracle (docs/rules.md: the arbiter of the ``botzone`` profile)."""

from __future__ import annotations

from mcr_env.testing.hands import WinningHand
from mcr_env.tiles import tile_to_code

try:  # optional dependency (pyproject extra "reference")
    from MahjongGB import MahjongFanCalculator as _calc
except ImportError:  # pragma: no cover - exercised only without the extra
    _calc = None


def pymahjonggb_available() -> bool:
    """True when PyMahjongGB (``import MahjongGB``) is installed."""
    return _calc is not None


_ORACLE_KIND = {"CHI": "CHI", "PENG": "PENG", "GANG": "GANG", "BUGANG": "GANG", "ANGANG": "GANG"}


def pymahjonggb_args(wh: WinningHand) -> dict:
    """Keyword arguments of ``MahjongGB.MahjongFanCalculator`` for a :class:`WinningHand`.

    A concealed kong (``ANGANG``) is PyMahjongGB's ``("GANG", tile, 0)``."""
    pack = tuple(
        (_ORACLE_KIND[k], tile_to_code(t), 0 if k == "ANGANG" else o) for k, t, o in wh.melds
    )
    return dict(
        pack=pack,
        hand=tuple(tile_to_code(t) for t in wh.hand),
        winTile=tile_to_code(wh.win_tile),
        flowerCount=wh.flowers,
        isSelfDrawn=wh.is_self_drawn,
        is4thTile=wh.is_4th_tile,
        isAboutKong=wh.is_about_kong,
        isWallLast=wh.is_wall_last,
        seatWind=wh.seat_wind,
        prevalentWind=wh.prevalent_wind,
        verbose=True,
    )


def pymahjonggb_score(wh: WinningHand) -> tuple[int, dict[str, int]]:
    """``(total points incl. flowers, {English fan name: count})`` according to PyMahjongGB.

    Raises:
        RuntimeError: PyMahjongGB is not installed.
        TypeError: PyMahjongGB rejected the hand (its way of reporting every input error).
    """
    if _calc is None:
        raise RuntimeError("PyMahjongGB is not installed (pip install pymahjonggb==1.4.0)")
    res = _calc(**pymahjonggb_args(wh))
    total = 0
    fans: dict[str, int] = {}
    for points, count, _cn, en in res:
        total += points * count
        fans[en] = fans.get(en, 0) + count
    return total, fans
