"""Bad input to the Craftax tasks: clear Python exceptions, the pool left usable."""

from __future__ import annotations

import numpy as np
import pytest

import envhive
from envhive.families import craftax


@pytest.mark.parametrize("action", [17, -1])
def test_bad_action_is_refused_naming_the_env(action: int) -> None:
    env = envhive.make("Craftax-Classic-Symbolic-v1", num_envs=2, seed=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=f"action {action} for env 1 .*Discrete\\(17\\)"):
        env.step(np.array([0, action]))
    obs, *_ = env.step(np.array([0, 0]))
    assert obs.shape == (2, 1345)
    env.close()


def test_seed_beyond_a_prng_key_is_refused() -> None:
    """craftax's seeds are jax.random.PRNGKey seeds (below 2**32)."""
    env = envhive.make("Craftax-Classic-Symbolic-v1", num_envs=1, seed=0)
    with pytest.raises((ValueError, envhive.EnvError), match="below 2\\*\\*32"):
        env.reset(seed=2**32)
    env.close()


def test_the_resolver_names_what_it_resolves() -> None:
    with pytest.raises(KeyError, match="'textures'"):
        craftax.resolve("models", {})


def test_texture_files_carry_their_shapes() -> None:
    """What the C++ reads: an int32 header (rows, columns, channels, dtype) and the values."""
    files = dict(craftax.texture_files())
    grass = np.frombuffer(files["classic/grass/7"][:16], dtype=np.int32)
    assert grass.tolist() == [7, 7, 4, 0] and len(files["classic/grass/7"]) == 16 + 7 * 7 * 4
    noise = np.frombuffer(files["classic/night_noise/7"][:16], dtype=np.int32)
    assert noise.tolist() == [49, 63, 1, 1] and len(files["classic/night_noise/7"]) == 16 + 49 * 63 * 4
