"""Environments written in Python (``csrc/envs/python/``, in ``envhive._native``): compiled with
Numba by ``envhive.authoring`` and registered at run time (the ``authoring`` extra)."""

from __future__ import annotations

from envhive.families.base import Family

FAMILY = Family(
    name="python",
    module="envhive._native",
    doc="Environments written in Python (envhive.authoring), compiled with Numba",
)
