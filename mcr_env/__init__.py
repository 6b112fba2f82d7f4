"""mcr-env: a reinforcement-learning environment for Mahjong Competition Rules (MCR)."""

__version__ = "0.1.0"
