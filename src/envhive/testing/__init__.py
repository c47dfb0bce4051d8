"""envhive.testing: what a backend or a plug-in family tests itself with (needs pytest).

- :class:`PoolContract` (``envhive.testing.contract``): the call contract every pool keeps, as a
  pytest class to subclass with how to make a pool of your task -- the state rules of each call,
  the three autoreset modes, final observations, seeding, errors.
"""

from envhive.testing.contract import Failure, PoolContract

__all__ = ["Failure", "PoolContract"]
# The lock-step comparison with a reference (envhive.testing.reference) is exported here too.
