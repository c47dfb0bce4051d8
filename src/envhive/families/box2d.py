"""Box2D (``csrc/envs/box2d/``, module ``envhive._box2d``): Gymnasium's LunarLander, BipedalWalker and
CarRacing, with Box2D built from pybox2d's source distribution into the module. CarRacing's reward
text is drawn with pygame-ce's font (the ``box2d`` extra), read once per process."""

from __future__ import annotations

from envhive.families.base import EnvPoolNames, Family

FAMILY = Family(
    name="box2d",
    module="envhive._box2d",
    doc="Gymnasium's Box2D tasks: LunarLander, BipedalWalker, CarRacing",
    extra="box2d",
    envpool=EnvPoolNames(
        # EnvPool's v2 ids are Gymnasium's v3 MDPs under their old names.
        aliases={
            "LunarLander-v2": ("LunarLander-v3", {}),
            "LunarLanderContinuous-v2": ("LunarLanderContinuous-v3", {}),
            "CarRacing-v2": ("CarRacing-v3", {}),
        }
    ),
)
