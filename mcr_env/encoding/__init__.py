"""Observation encoders (versioned, e.g. ``planes-v0``) and the action layout with names.

``get_encoder("planes-v0")`` returns an :class:`~mcr_env.encoding.base.Encoder`; the built-in
encoders are imported on first lookup, so importing this package stays cheap.
"""

from mcr_env.encoding.base import (
    Encoder,
    Piece,
    as_grid,
    encoder_ids,
    get_encoder,
    register_encoder,
    resolve_encoder,
)

__all__ = [
    "Encoder",
    "Piece",
    "as_grid",
    "encoder_ids",
    "get_encoder",
    "register_encoder",
    "resolve_encoder",
]
