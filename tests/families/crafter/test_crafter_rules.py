"""envhive's Crafter is built for crafter 1.8.3's rules (its data.yaml): a crafter whose rules
differ is refused, naming the rule, when the first task is made (the textures and the rules are
handed over then, by the family's resolver)."""

from __future__ import annotations

import subprocess
import sys

from envhive.families import crafter


def test_rules_of_the_installed_crafter_are_read() -> None:
    numbers = crafter.rule_numbers()
    assert numbers["make.wood_pickaxe.uses.wood"] == 1.0 and numbers["items.health.max"] == 9.0


def test_a_crafter_with_other_rules_is_refused() -> None:
    script = (
        "import crafter.constants as c, envhive\n"
        "c.make['wood_pickaxe']['uses']['wood'] = 5\n"
        "try:\n"
        "    envhive.make('CrafterReward-v1', num_envs=1)\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert "make.wood_pickaxe.uses.wood: envhive 1" in out.stdout and "crafter 5" in out.stdout, out
