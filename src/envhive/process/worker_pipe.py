"""A worker's end of its pipe to the parent: what does not travel through the arena.

Out: an env's error, an info the arena's records cannot hold (pickled), an object leaf too big
for its slot, a new info layout, and the answer to a control message. In: reset options (sent
before the resets that use them) and control messages (``render``). The messages are listed in
``envhive.process.protocol``.
"""

from __future__ import annotations

import traceback
from multiprocessing.connection import Connection
from typing import Any


class ParentPipe:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.options: dict[int, Any] = {}  # reset options received, by env id, until their reset

    # ------------------------------------------------------------------ reports
    def announce(self, code: int, fields: Any) -> None:
        """A new info layout (``InfoWriter``'s callback): the parent learns how to read its records."""
        self.conn.send(("layout", code, fields))

    def info(self, env_id: int, area: int, info: dict[str, Any]) -> None:
        """An info the arena's records cannot hold (``area`` 1: a final info)."""
        self.conn.send(("info", env_id, area, info))

    def large_object(self, env_id: int, region: str, value: Any) -> None:
        """An object leaf that does not fit its slot of ``region``."""
        self.conn.send(("object", env_id, region, value))

    def error(self, env_id: int, error: BaseException) -> None:
        """Env ``env_id`` raised ``error`` (the parent raises it as EnvError)."""
        text = f"{type(error).__name__}: {error}\n" + "".join(
            traceback.format_exception(type(error), error, error.__traceback__)
        )
        self.conn.send(("error", env_id, text))

    # ------------------------------------------------------------------ what the parent sends
    def reset_options(self, env_id: int) -> Any:
        """The options of env ``env_id``'s reset (the parent sends them before the reset command)."""
        while env_id not in self.options:
            message = self.conn.recv()
            if message[0] != "options":
                raise RuntimeError(f"expected reset options, got a {message[0]!r} message")
            self.options.update(message[1])
        return self.options.pop(env_id)

    def control(self, envs: list[Any]) -> bool:
        """Answer one control message (render); False if the pipe is gone."""
        try:
            message = self._message()
        except (EOFError, OSError):
            return False
        kind = message[0]
        try:
            if kind == "render":
                value: Any = [env.render() for env in envs]
            else:
                raise ValueError(f"unknown control message {kind!r}")
        except Exception:  # noqa: BLE001 - reported to the parent
            self.conn.send(("failed", traceback.format_exc()))
        else:
            self.conn.send(("reply", value))
        return True

    def _message(self) -> Any:
        """The next pipe message that is not reset options (those are kept for their resets)."""
        while True:
            message = self.conn.recv()
            if message[0] != "options":
                return message
            self.options.update(message[1])
