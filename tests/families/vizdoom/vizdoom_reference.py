"""The reference of envhive's ViZDoom tasks: the vizdoom package's own DoomGame (its Python API, the
same scenario files, engine and seed), with EnvPool 1.2.5's definitions written here once more in
Python and numpy, independently of envhive's C++: the frame stack of cv2.resize'd screen planes,
the float32 reward from game-variable changes, the 16 info variables, frame_skip, episodic_life,
EnvPool's combined action enumeration."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import vizdoom as vzd

from envhive.families import vizdoom as family

INFO = ("AMMO2", "AMMO3", "AMMO4", "AMMO5", "AMMO6", "AMMO7", "ARMOR", "DAMAGECOUNT", "DEATHCOUNT", "FRAGCOUNT",
        "HEALTH", "HITCOUNT", "KILLCOUNT", "SELECTED_WEAPON", "SELECTED_WEAPON_AMMO", "USER2")  # fmt: skip
F32 = np.float32
REWARDS = {  # EnvPool's defaults, as float32 values
    "FRAGCOUNT": (1, -1.5), "KILLCOUNT": (1, 0), "DEATHCOUNT": (-0.75, 0.75), "HITCOUNT": (0.01, -0.01),
    "DAMAGECOUNT": (0.003, -0.003), "HEALTH": (0.005, -0.003), "ARMOR": (0.005, -0.001),
    **{f"WEAPON{k}": w for k, w in enumerate([(0.02, -0.01)] * 3 + [(0.1, -0.05)] * 3 + [(0.2, -0.1)] * 2)},
    **{f"AMMO{k}": w for k, w in enumerate([(0.0002, -0.0001)] * 3 + [(0.001, -0.0005)] * 3 + [(0.002, -0.001)] * 2)},
}  # fmt: skip
WEAPONS = {0: 0.0002, 1: 0.0002, 2: 0.0002, 3: 0.001, 4: 0.001, 5: 0.001, 6: 0.002, 7: 0.002}


def combined_actions(buttons: list[int], force_speed: bool = False) -> list[list[float]]:
    """EnvPool's enumeration of button combinations (no delta configs), written from its rules."""
    slot = {b: i for i, b in enumerate(buttons)}
    pairs = {10, 12, 14, 16, 18, 31, 35}
    row = [0.0] * len(buttons)
    out: list[list[float]] = []

    def walk(b: int) -> None:
        if b == 43:
            out.append(list(row))
        elif b >= 38 or b not in slot and not (21 <= b <= 30):
            walk(b + 1)
        elif 21 <= b <= 30:
            walk(31)
            for w in range(21, 31):
                if w in slot:
                    row[slot[w]] = 1.0
                    walk(31)
                    row[slot[w]] = 0.0
        elif b in pairs and b + 1 in slot:
            for first, second in ((0, 0), (1, 0), (0, 1)):
                row[slot[b]], row[slot[b + 1]] = first, second
                walk(b + 2)
            row[slot[b]] = row[slot[b + 1]] = 0.0
        elif b == 8 and force_speed:
            row[slot[b]] = 1.0
            walk(b + 1)
        else:
            walk(b + 1)
            row[slot[b]] = 1.0
            walk(b + 1)
            row[slot[b]] = 0.0

    walk(0)
    return out


class Reference:
    """One env: vizdoom.DoomGame with EnvPool's settings and definitions."""

    def __init__(self, scenario: str, seed: int, max_episode_steps: int = 525, **kw: Any) -> None:
        self.h, self.w = kw.get("img_height", 84), kw.get("img_width", 84)
        self.stack_num, self.frame_skip = kw.get("stack_num", 4), kw.get("frame_skip", 4)
        self.episodic_life = kw.get("episodic_life", False)
        self.combined = kw.get("use_combined_action", False)
        self.area = kw.get("use_inter_area_resize", True)
        self.weapon_duration = kw.get("weapon_duration", 5)
        cfg, wad = family.scenario_files(scenario) if scenario else ("", "")
        cfg, wad = kw.get("cfg_path") or cfg, kw.get("wad_path") or wad
        _, engine, iwad = family.doom_files()
        g = self.game = vzd.DoomGame()
        g.set_vizdoom_path(engine)
        g.set_doom_game_path(iwad)
        g.load_config(cfg)
        g.set_window_visible(False)
        g.add_game_args(kw.get("game_args", family.GAME_ARGS.get(scenario, "")))
        g.set_mode(vzd.Mode.PLAYER)
        g.set_episode_timeout((max_episode_steps + 1) * self.frame_skip)
        g.set_doom_scenario_path(wad)
        g.set_doom_map("map01")
        for name in INFO:
            g.add_available_game_variable(getattr(vzd.GameVariable, name))
        self.variables = [v.name for v in g.get_available_game_variables()]
        self.channels = g.get_screen_channels()
        buttons = [int(b) for b in g.get_available_buttons()]
        self.action_set = combined_actions(buttons, kw.get("force_speed", False))
        self.n_buttons = len(buttons)
        weights = {k: (float(F32(a)), float(F32(b))) for k, (a, b) in kw.get("reward_config", REWARDS).items()}
        self.pos = [weights.get(v, (0.0, 0.0))[0] for v in self.variables]
        self.neg = [weights.get(v, (0.0, 0.0))[1] for v in self.variables]
        weapons = kw.get("selected_weapon_reward_config", WEAPONS)
        self.weapon = {int(k): float(F32(v[0] if isinstance(v, list) else v)) for k, v in weapons.items()}
        g.set_seed(seed)
        g.init()
        self.ended = False
        self.stack: list[np.ndarray] = []
        self.now = np.zeros(len(self.variables))
        self.start = {}

    def _frame(self, screen: np.ndarray) -> np.ndarray:
        planes = screen.reshape(self.channels, -1)  # the buffer as planes, as EnvPool reads it
        src_h, src_w = self.game.get_screen_height(), self.game.get_screen_width()
        flag = cv2.INTER_AREA if self.area else cv2.INTER_LINEAR
        return np.stack([cv2.resize(p.reshape(src_h, src_w), (self.w, self.h), interpolation=flag) for p in planes])

    def _observe(self, is_reset: bool) -> float:
        state = self.game.get_state()
        if state is None:
            return 0.0
        raw = np.array(state.game_variables, dtype=np.float64)
        last = raw.copy() if is_reset else self.now.copy()
        now = raw.copy()
        for name in ("HITCOUNT", "DAMAGECOUNT", "DEATHCOUNT"):
            if name in self.variables:
                i = self.variables.index(name)
                if is_reset:
                    self.start[name] = now[i]
                    last[i] = 0
                now[i] -= self.start[name]
        reward, weapon, ammo = F32(0), -1, 0
        for i, name in enumerate(self.variables):
            delta = now[i] - last[i]
            if name == "DAMAGECOUNT" and delta >= 200:
                delta = 200.0
            elif name == "HITCOUNT" and delta >= 5:
                delta = 5.0
            elif name == "SELECTED_WEAPON":
                weapon = int(now[i])
            elif name == "SELECTED_WEAPON_AMMO":
                ammo = int(now[i])
            elif name == "HEALTH":
                if last[i] < 0 and now[i] < 0:
                    last[i] = now[i] = 100
                elif now[i] < 0:
                    now[i] = last[i]
                elif last[i] < 0:
                    last[i] = now[i]
                delta = now[i] - last[i]
            reward = reward + F32(delta * self.pos[i]) if delta >= 0 else reward - F32(delta * self.neg[i])
        if is_reset:
            self.held, self.held_steps = -1, 0
        if weapon == self.held:
            self.held_steps += 1
        else:
            self.held, self.held_steps = weapon, 1
        if 0 <= weapon < 10 and self.held_steps >= self.weapon_duration and ammo > 0:
            reward = F32(float(reward) + self.weapon.get(weapon, 0.0))
        self.now = now
        frame = self._frame(state.screen_buffer)
        self.stack = [frame] * self.stack_num if is_reset else [*self.stack[1:], frame]
        return float(reward)

    def obs(self) -> np.ndarray:
        return np.concatenate(self.stack, axis=0)

    def infos(self) -> dict[str, float]:
        return {k: float(self.now[self.variables.index(k)]) for k in INFO}

    def reset(self, first: bool = False, seed: int | None = None) -> np.ndarray:
        if first:
            pass
        elif self.ended and self.episodic_life and not self.game.is_episode_finished():
            self.game.make_action(self.action_set[0], self.frame_skip)
        else:
            if seed is not None:
                self.game.set_seed(seed)
            self.game.new_episode()
        self.ended = False
        self._observe(True)
        return self.obs()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool]:
        buttons = self.action_set[int(action)] if self.combined else [float(x) for x in action]
        self.game.set_action(buttons)
        self.game.advance_action(self.frame_skip, True)
        terminated = self.game.is_episode_finished() or (self.episodic_life and self.game.is_player_dead())
        self.ended = terminated
        reward = self._observe(False)
        return self.obs(), reward, terminated

    def close(self) -> None:
        self.game.close()
