"""Batched MCR game engine (RULES.md sections 2-4)."""
