"""The call rules' messages are written once (envhive.call_rules.TEMPLATES): no other file of src/ or
csrc/ holds their text, the C++ call front formats the templates Python installs into every family
module, and a module refuses a set of templates that lacks one it uses. What each call may do in a
pool's state is tested on every backend by the contract (test_contract.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import envhive
from envhive import call_rules
from envhive.call_rules import TEMPLATES, CallState, message
from envhive.errors import ResetNeeded

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / "src" / "envhive" / "call_rules.py"
SUFFIXES = {".py", ".h", ".hpp", ".cc", ".cpp"}
FIELD = re.compile(r"\{[a-z_]+\}")
# Where one string literal ends and the next begins: Python's implicit concatenation (f-strings too)
# and C++'s, over a line break, or C++'s `" + expression + "`.
SEAM = re.compile(r"""["']\s*(?:\+[^"'\n]{0,80}\+\s*)?(?:[frb]{0,2})["']""")
NEAR = 200  # a template's runs of text found in order, each within this many characters of the last


def runs(template: str) -> list[str]:
    """A template's runs of text between its fields, trimmed; those of 5 characters or more."""
    return [part.strip() for part in FIELD.split(template) if len(part.strip()) >= 5]


def joined(source: str) -> str:
    """The source with adjacent string literals joined, so a message split over lines (or around
    a C++ expression) reads as one run of text."""
    return SEAM.sub("", source)


def holds(text: str, parts: list[str]) -> bool:
    """``parts`` appear in ``text`` in order, each within NEAR characters after the previous."""
    start = text.find(parts[0])
    while start >= 0:
        at, ok = start + len(parts[0]), True
        for part in parts[1:]:
            found = text.find(part, at, at + NEAR + len(part))
            if found < 0:
                ok = False
                break
            at = found + len(part)
        if ok:
            return True
        start = text.find(parts[0], start + 1)
    return False


def copies(files: list[Path]) -> list[str]:
    """``path: template`` for every file that holds a template's text (all its runs, in order)."""
    found = []
    for path in files:
        text = joined(path.read_text(errors="replace"))
        for name, template in TEMPLATES.items():
            parts = runs(template)
            if parts and sum(map(len, parts)) >= 16 and holds(text, parts):
                found.append(f"{path}: {name}")
    return sorted(found)


def tree() -> list[Path]:
    files = [p for folder in ("src", "csrc") for p in (ROOT / folder).rglob("*") if p.suffix in SUFFIXES]
    return [p for p in files if p != HOME and "build" not in p.parts]


def test_no_message_of_the_call_rules_is_written_twice() -> None:
    assert len(tree()) > 100  # the scan sees the whole tree
    assert copies(tree()) == []
    for name, template in TEMPLATES.items():  # nor is one template's text another's
        others = "\n".join(t for n, t in TEMPLATES.items() if n != name)
        assert not holds(others, runs(template)) or sum(map(len, runs(template))) < 16, name


def test_the_scan_finds_a_copy(tmp_path: Path) -> None:
    """The test above can fail: a message copied into a C++ string, even split over two lines."""
    copied = tmp_path / "copy.cc"
    copied.write_text(
        'throw std::invalid_argument("recv() would wait forever: " + std::to_string(n) + " env(s) in flight, "\n'
        '                            "batch_size is " + std::to_string(b) + "; send() actions (or "\n'
        '                            "async_reset()) first");\n'
    )
    assert copies([copied]) == [f"{copied}: recv_forever"]
    copied.write_text('raise ValueError(f"cannot reset env {env}: it is in flight; recv() it first")\n')
    assert copies([copied]) == [f"{copied}: reset_in_flight"]


def test_every_message_the_cpp_front_formats_is_a_template() -> None:
    header = (ROOT / "csrc" / "bindings" / "call_front.h").read_text()
    names = re.findall(r'"([a-z_]+)"', header[header.index("kMsgNames[]") : header.index("static_assert")])
    assert len(names) >= 25 and set(names) <= set(TEMPLATES)


def test_a_module_refuses_templates_that_lack_one_it_uses() -> None:
    module = envhive.catalog.module_for("CartPole-v1")
    with pytest.raises(ValueError, match="lack .*never_reset.*recv_forever"):
        module.set_call_messages([("in_flight", "x")])
    pool = envhive.make("CartPole-v1", num_envs=2)  # the installed templates are untouched
    with pytest.raises(envhive.ResetNeeded, match=f"^{re.escape(message('never_reset', env=0))}$"):
        pool.step(np.zeros(2, dtype=np.int64))


def test_message_fills_fields_and_keeps_other_braces() -> None:
    assert message("ended", env=3).startswith("env 3 has ended its episode")
    assert message("ended", env=3).endswith("reset(options={'reset_mask': mask})")
    with pytest.raises(KeyError):
        message("ended")


def test_call_state_plans_as_the_rules_say() -> None:
    """CallState by itself (the backends' runs are the contract's): flight, resets, DISABLED ends."""
    from gymnasium.vector import AutoresetMode

    state = CallState(4, 2, AutoresetMode.DISABLED)
    with pytest.raises(ResetNeeded, match=re.escape(message("never_reset", env=1))):
        state.check_send(np.array([1, 2]))
    ids = state.plan_reset(None, receive=False)
    state.reset_queued(ids)
    assert state.all_reset and state.in_flight() == 4
    state.received(np.array([0, 1]), np.array([False, True]), np.array([False, False]))
    with pytest.raises(ValueError, match=re.escape(message("ended", env=1))):
        state.check_send(np.array([0, 1]))
    with pytest.raises(ValueError, match=re.escape(message("reset_in_flight", env=2))):
        state.plan_reset(np.array([False, False, True, False]), receive=True)
    state.check_recv()
    state.received(np.array([2, 3]), np.zeros(2, bool), np.zeros(2, bool))
    with pytest.raises(ValueError, match=re.escape(message("recv_forever", in_flight=0, batch_size=2))):
        state.check_recv()
    with pytest.raises(ValueError, match=re.escape(message("reset_cannot_fill", count=1, batch_size=2, others=0))):
        state.plan_reset(np.array([False, True, False, False]), receive=True)
    assert state.plan_reset(np.array([False, True, False, False]), receive=False).tolist() == [1]
    assert state.flight.tolist() == [call_rules.IDLE] * 4
