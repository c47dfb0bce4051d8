"""The parameter orders of the three functions a PyEnv defines, in one table.

The declaration checks (and their usage messages), the generated glue, the Numba signatures and
the pure-Python twin all read the order from here; a function may omit trailing parameters down to
``minimum``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FUNCTIONS = ("reset", "step", "observe")


@dataclass(frozen=True)
class Signature:
    """One function: its parameters in order, how many it needs at least, what it returns."""

    function: str
    params: tuple[str, ...]
    minimum: int
    returns: str = ""

    @property
    def arities(self) -> tuple[int, ...]:
        return tuple(range(self.minimum, len(self.params) + 1))

    def usage(self) -> str:
        """E.g. ``step(state, action[, rand[, config]]) -> (reward, terminated)``."""
        head = ", ".join(self.params[: self.minimum])
        tail = "".join(f"[, {p}" for p in self.params[self.minimum :]) + "]" * (len(self.params) - self.minimum)
        return f"{self.function}({head}{tail}){self.returns}"

    def pick(self, arity: int, **values: Any) -> tuple[Any, ...]:
        """The first ``arity`` parameters' values, in order, from keyword values (extras ignored)."""
        return tuple(values[p] for p in self.params[:arity])


RESET = Signature("reset", ("state", "rand", "config"), 2)
STEP = Signature("step", ("state", "action", "rand", "config"), 2, " -> (reward, terminated)")
OBSERVE = Signature("observe", ("state", "obs", "config"), 2)
# With a Discrete observation space, observe returns the int instead of writing a buffer.
OBSERVE_DISCRETE = Signature("observe", ("state", "config"), 1, " -> int")


def signature(function: str, discrete_obs: bool) -> Signature:
    if function == "observe":
        return OBSERVE_DISCRETE if discrete_obs else OBSERVE
    return {"reset": RESET, "step": STEP}[function]
