"""What envhive's own tests use, public for plug-ins and backends: ``reference`` (one lock-step
harness against a task's reference implementation, :func:`assert_matches_reference`)."""

from __future__ import annotations

from envhive.testing.reference import LockstepStats, Tolerance, assert_matches_reference, random_actions

__all__ = ["LockstepStats", "Tolerance", "assert_matches_reference", "random_actions"]
