"""mypkg: C++ tasks for envhive (``envhive.make("mypkg/CartPole-v1")``).

Nothing needs to import this package: envhive finds its module, ``mypkg._envs``, through the
``envhive.families`` entry point and loads it when one of its tasks is first made.
"""
