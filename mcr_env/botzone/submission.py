"""``__main__.py`` of an exported Botzone submission (``scripts/export_botzone.py``).

The zip holds this file as ``__main__.py``, the weights as ``weights.npz`` and the parts of
mcr_env a bot needs (tiles, scoring, engine, encoding, botzone; no gymnasium, no torch), so
``python bot.zip`` runs the policy as a Botzone bot with numpy as its only dependency. It speaks
JSON or simple I/O and stays alive between turns (keep-running) unless ``--once`` is given.
Runs on Python 3.6+: the zip's sources are rewritten for 3.6 and, for 3.6, carry the
dataclasses backport under ``_compat36/`` (``baselines/botzone_py36.py``).
"""

import io
import os
import sys
import zipfile


def load_weights(here: str):
    """The arrays of ``weights.npz`` next to this file, inside the zip or in a folder."""
    import numpy as np

    if os.path.isfile(here) and zipfile.is_zipfile(here):
        with zipfile.ZipFile(here) as z:
            data = z.read("weights.npz")
        return dict(np.load(io.BytesIO(data)))
    return dict(np.load(os.path.join(here, "weights.npz")))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    # Python 3.6 (Botzone's) has no dataclasses: the zip carries the backport
    if sys.version_info < (3, 7):  # noqa: UP036 (the bot runs on 3.6, mcr-env does not)
        sys.path.insert(1, os.path.join(here, "_compat36"))
    from mcr_env.botzone.bot import BotzoneBot, run_bot
    from mcr_env.botzone.numpy_policy import NumpyPolicyAgent

    agent = NumpyPolicyAgent(load_weights(here))
    return run_bot(lambda: BotzoneBot(agent), keep_running="--once" not in argv)


if __name__ == "__main__":
    sys.exit(main())
