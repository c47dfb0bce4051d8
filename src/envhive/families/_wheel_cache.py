"""Files taken from a wheel on the package index, on first use: the one recipe of the families that
run a binary or data another distribution publishes (Procgen's engine, EnvPool's ViZDoom maps), as
the build fetches ALE's and Box2D's sources: the ordinary pip client with a pinned sha256
(``--require-hashes``), the hash checked again, only the members needed unpacked into a folder of
their own under a cache, a stamp once complete, a file lock against concurrent processes."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

STAMP = "complete.stamp"


def user_cache(env_var: str) -> Path:
    """$<env_var>, else $XDG_CACHE_HOME/envhive, else ~/.cache/envhive."""
    if os.environ.get(env_var):
        return Path(os.environ[env_var])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "envhive"


def complete(folder: Path) -> bool:
    return (folder / STAMP).is_file()


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process fetching the same files finishes first
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def fetch_wheel_members(
    requirement: str,
    sha256: str,
    pip_args: list[str],
    folder: Path,
    member: Callable[[str], str | None],
    command: str,
    error: type[Exception],
    hint: str = "",
) -> None:
    """Fetches `requirement` (``name==version``) with pip and `pip_args`, checks its sha256, and
    unpacks each member `member` maps to a relative path into `folder` (then stamped). Raises
    `error` naming `command` (the user's equivalent) when pip fails, and for a file of another hash."""
    with locked(folder):
        if complete(folder):
            return
        with tempfile.TemporaryDirectory(prefix="envhive-fetch-", dir=folder.parent) as tmp:
            work = Path(tmp)
            (work / "requirements.txt").write_text(f"{requirement} --hash=sha256:{sha256}\n")
            argv = [
                sys.executable, "-m", "pip", "download", "--no-deps", *pip_args, "--require-hashes",
                "--disable-pip-version-check", "--no-input", "-r", str(work / "requirements.txt"),
                "-d", str(work / "download"),
            ]  # fmt: skip
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise error(f"could not fetch {requirement}: `{command}` failed: {e}") from e
            name = requirement.split("==")[0].replace("-", "_")
            wheels = sorted((work / "download").glob(f"{name}-*.whl"))
            if done.returncode != 0 or len(wheels) != 1:
                raise error(
                    f"could not fetch {requirement}: `{command}` failed (exit {done.returncode}); it needs PyPI "
                    f"(or your pip index) and pip.{' ' + hint if hint else ''}\n{(done.stdout + done.stderr)[-3000:]}"
                )
            digest = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
            if digest != sha256:
                raise error(f"{wheels[0].name} has sha256 {digest}, expected {sha256}")
            staged = work / "files"
            staged.mkdir()
            with zipfile.ZipFile(wheels[0]) as wheel:
                for item in wheel.infolist():
                    relative = None if item.is_dir() else member(item.filename)
                    if relative is None:
                        continue
                    path = Path(relative)
                    if path.is_absolute() or ".." in path.parts:
                        raise error(f"{wheels[0].name}: unexpected member {item.filename}")
                    (staged / path).parent.mkdir(parents=True, exist_ok=True)
                    with wheel.open(item) as src, open(staged / path, "wb") as dst:
                        shutil.copyfileobj(src, dst)
            (staged / STAMP).write_text(f"{requirement} sha256 {sha256}\n")
            if folder.exists():
                shutil.rmtree(folder)
            staged.rename(folder)
