"""Rules configuration of the engine (docs/rules.md §2-§4, §7 and §10)."""

from __future__ import annotations

from dataclasses import dataclass, fields

WALL_LAYOUTS = ("official", "botzone")
SCORING_PROFILES = ("mcr", "botzone")
ILLEGAL_ACTIONS = ("raise", "penalize")
MATCH_MODES = ("hand", "match")
CLAIM_ROUNDS = ("options", "all")


@dataclass(frozen=True)
class RulesConfig:
    """Which variant of the rules the engine plays.

    Raises:
        ValueError: a value is not one of the valid ones (the message lists them).
    """

    wall_layout: str = "official"
    """"official": 144 tiles (8 flowers) in one wall, normal draws from the front, replacement
    draws (flower or kong) from the back, no dead wall. "botzone": 136 tiles, no flowers, four
    34-tile walls, seat s is dealt, draws and takes kong replacements only from its own wall,
    all from the same end, in the Botzone judge's order; a kong also needs a tile in the next
    seat's wall (docs/rules.md §2 and §9; :func:`mcr_env.engine.walls.wall_from_judge`)."""
    scoring_profile: str = "mcr"
    """Scorer profile passed to ``score_win``: "mcr" or "botzone" (docs/rules.md §7)."""
    illegal_action: str = "raise"
    """"raise": an action outside the legal mask raises ValueError. "penalize": the offender
    pays 30, each other seat gets 10, and the hand ends (docs/rules.md §3)."""
    match: str = "hand"
    """"hand": every game is a single hand, East (the dealer) at seat 0. "match": 16 hands with
    dealer rotation, prevalent winds and seat changes (docs/rules.md §4)."""
    claim_round: str = "options"
    """Who is asked to answer a discard or a promoted kong (docs/rules.md §10).

    "options" (default, fastest): only seats with an option besides Pass are asked
    (``to_act``); a claim round or robbing window nobody can answer is passed automatically
    inside the same step. Which seats are asked then depends on their concealed hands, so a
    multi-agent interface that shows the turn order leaks it (docs/rules.md §10).
    "all": every non-discarder is asked in every claim round after every discard, and every
    other seat in every robbing window after a BuGang, as the Botzone judge does; a seat
    without an option gets a Pass-only mask (``to_act`` True, ``legal_mask`` only PASS). The
    outcome of a game is the same in both modes when the extra Pass-only decisions are
    answered Pass (the only legal answer); only the number of decisions differs."""

    def __post_init__(self) -> None:
        valid = {
            "wall_layout": WALL_LAYOUTS,
            "scoring_profile": SCORING_PROFILES,
            "illegal_action": ILLEGAL_ACTIONS,
            "match": MATCH_MODES,
            "claim_round": CLAIM_ROUNDS,
        }
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, str):
                raise TypeError(
                    f"RulesConfig.{f.name} must be a str, one of {', '.join(valid[f.name])}; "
                    f"got {type(value).__name__} {value!r}"
                )
            if value not in valid[f.name]:
                raise ValueError(
                    f"RulesConfig.{f.name} = {value!r} is not valid; "
                    f"valid values: {', '.join(valid[f.name])}"
                )

    @classmethod
    def from_dict(cls, data: dict) -> RulesConfig:
        """Build from a mapping (e.g. a YAML section).

        Raises:
            TypeError: ``data`` is not a mapping.
            ValueError: an unknown key (the message lists the valid keys) or an invalid value.
        """
        if not isinstance(data, dict):
            raise TypeError(f"RulesConfig.from_dict expects a dict, got {type(data).__name__}")
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ValueError(f"unknown RulesConfig keys {unknown}; valid keys: {', '.join(names)}")
        return cls(**data)
