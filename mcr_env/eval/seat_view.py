"""Re-export of :class:`mcr_env.encoding.seat_view.SeatView` (moved to the encoding layer so
that the envs can build it without importing :mod:`mcr_env.eval`)."""

from mcr_env.encoding.seat_view import SeatView

__all__ = ["SeatView"]
