"""Observation encoders (versioned, e.g. ``planes-v0``) and the action layout with names.

Encoders are looked up by id with :func:`get_encoder`; importing this package stays cheap
(encoders are imported on first lookup).
"""
