"""MCR for people: play a seat in the terminal (``mcr-play``, :mod:`mcr_env.play.terminal`) and
watch a game record in the browser (``mcr-view``, :mod:`mcr_env.play.html`).

Both show a table through :mod:`mcr_env.play.frames`, which applies the information rule
(a seat's view never holds what that seat cannot see; docs/rules.md §10).
"""
