"""MiniGrid's kwargs that size the observation: refused before anything is allocated, naming the
kwarg and the limit (issue 40): a tile size past the largest frame side, a FlatObsWrapper string
length whose one-hot codes pass the 1 GiB limit or would overflow, and products of kwargs that make
one env's observation larger than 1 GiB (the core's limit on every family's spaces)."""

from __future__ import annotations

import pytest

import envhive


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rgb_img_obs": True, "rgb_tile_size": 10**6}, r"rgb_tile_size must be in \[1, 16384\] \(pixels per cell\)"),
        ({"rgb_img_partial_obs": True, "rgb_tile_size": 0}, r"rgb_tile_size must be in \[1, 16384\]"),
        ({"tile_size": -4}, r"tile_size must be in \[1, 16384\]"),
        ({"tile_size": 2**40}, r"tile_size must be in \[1, 16384\]"),
        ({"flat_obs": True, "flat_max_str_len": 10**12}, r"flat_max_str_len must be in \[1, 38347922\]"),
        # 28 * (2**62 + 10) wraps int64 to 280: refused, not a 10-character limit
        ({"flat_obs": True, "flat_max_str_len": 2**62 + 10}, r"flat_max_str_len must be in \[1, 38347922\]"),
        ({"flat_obs": True, "flat_max_str_len": 0}, r"flat_max_str_len must be in \[1, 38347922\]"),
    ],
)
def test_sizes_past_their_bounds_are_refused(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        envhive.make("MiniGrid-Empty-8x8-v0", **kwargs)
    with pytest.raises(ValueError, match=match):
        envhive.make_spec("MiniGrid-Empty-8x8-v0", **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rgb_img_obs": True, "rgb_tile_size": 16384},  # (131072, 131072, 3): 48 GiB
        {"rgb_img_partial_obs": True, "agent_view_size": 101, "rgb_tile_size": 1000},  # (101000, 101000, 3)
    ],
)
def test_observations_over_one_gib_name_the_kwargs_and_the_limit(kwargs: dict) -> None:
    with pytest.raises(ValueError, match=r"GiB\), more than envhive's limit of 1073741824 bytes") as e:
        envhive.make("MiniGrid-Empty-16x16-v0", **kwargs)
    message = str(e.value)
    assert "MiniGrid-Empty-16x16-v0: the observation space['image'] of shape" in message
    for name, value in kwargs.items():
        assert f"{name}={value if not isinstance(value, bool) else value}" in message, message


def test_the_largest_flat_string_fits_and_works() -> None:
    """The bound is the limit itself: a string length just under it still makes a pool whose
    observation is image + 28 x length (one env)."""
    env = envhive.make("MiniGrid-Empty-5x5-v0", flat_obs=True, flat_max_str_len=100_000, num_envs=1)
    assert env.single_observation_space.shape == (7 * 7 * 3 + 28 * 100_000,)
    obs, _ = env.reset()
    assert obs.shape == (1, 7 * 7 * 3 + 28 * 100_000)
    env.close()


def test_envpools_wfc_ids_are_refused_because_no_released_minigrid_can_make_them() -> None:
    """EnvPool lists six wave-function-collapse levels. Their reference reads pattern images that
    no released minigrid ships: this test fails when an installed minigrid can make one, which is
    the day envhive has an exact target to port them to."""
    import gymnasium
    import minigrid

    from envhive import envpool
    from envhive.families.minigrid import WFC_IDS

    minigrid.register_minigrid_envs()
    for task_id in WFC_IDS:
        with pytest.raises(FileNotFoundError, match="patterns"):
            gymnasium.make(task_id).reset(seed=0)
        with pytest.raises(envhive.UnknownTaskError, match="pattern images"):
            envpool.make_gym(task_id, num_envs=1)
        assert task_id not in envpool.list_all_envs()
