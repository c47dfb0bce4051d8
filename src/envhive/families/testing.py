"""The engine's own test tasks (``csrc/envs/testing/``, in ``envhive._native``): hidden, makeable by
id for the engine's tests, never listed."""

from __future__ import annotations

from envhive.families.base import Family

FAMILY = Family(name="testing", module="envhive._native", doc="envhive's engine test tasks (hidden)")
