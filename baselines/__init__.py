"""Baseline agents (random, rule-based, torch policy) and trainers (behaviour cloning, PPO).

See ``baselines/agents.py`` for the agent interface and ``baselines/train.py`` for the main job.
"""
