"""One learning seat against fixed agents, as a plain gymnasium environment (sb3-contrib MaskablePPO).

```python
from mjenv.wrappers import SingleAgentEnv
env = SingleAgentEnv(opponents="greedy")         # the three other seats are GreedyAgents
obs, info = env.reset(seed=0)                     # obs: float32[N], the learner's observation
mask = env.action_masks()                         # bool[A]: what MaskablePPO asks for
obs, reward, terminated, truncated, info = env.step(action)
```

Each episode is one hand of :func:`mjenv.parallel_env`. The learner sits at ``seat`` (a fixed seat
0..3, or ``None`` for a seat drawn per hand from the env's generator); the other seats are agents with
``act(observation_dict) -> int`` (baselines by name through the evaluation harness's registry:
``"greedy"``, ``"random"``, ``"flatmc"``, ``"policy:PATH"``; or agent objects). Steps at which the
learner has nothing to decide (only PASS legal) are played through automatically, so every ``step``
is a real decision; the rewards of the skipped steps (the end-of-hand score) are added to the reward
the learner gets. A hand that ends before the learner's first decision is followed by
the next deal at once (never seen by the learner). The observation is the flat
``observation`` array (a ``Box``, which every sb3 policy reads); the mask is ``action_masks()`` and
``info["action_mask"]``.

**Shaping.** ``shaping="deficiency"`` (or ``"deficiency_tiles"``, see :mod:`mjenv.shaping`) is applied
here, in the learner's own decision process, not by the base env (which runs unshaped): with the
potential ``Phi`` of the learner's own observation, each ``step`` adds
``F = gamma * Phi(s_next) - Phi(s)`` between the learner's consecutive decisions ``s`` and ``s_next``,
and ``-Phi(s)`` when the hand ends (``Phi = 0`` at the end). **Pass the learner's own discount as
``gamma``** (e.g. MaskablePPO's ``gamma``, which discounts once per ``step`` of this env, not per env
step): then the discounted sum of ``F`` over a hand is exactly ``-Phi(s_0)`` whatever happens, so the
shaping is potential-based (Ng, Harada and Russell 1999, Theorem 1) and leaves optimal policies
unchanged. ``info["potential"]`` is ``Phi`` of the learner's state (the env's, for
``shaping="deficiency"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from mjenv import AGENTS


def _make_opponents(opponents: Any, rules: Any) -> list:
    if isinstance(opponents, str) or hasattr(opponents, "act"):
        opponents = [opponents] * 3
    opponents = list(opponents)
    if len(opponents) != 3:
        raise ValueError(f"opponents must be one agent/spec or three (one per other seat), got {len(opponents)}")
    out = []
    for k, o in enumerate(opponents):
        if isinstance(o, str):
            from mjenv.baselines.registry import make_agent

            out.append(make_agent(o, seed=k, rules=rules))
        elif hasattr(o, "act"):
            out.append(o)
        else:
            raise ValueError(f"opponent {k} must be an agent with act(observation) or a spec like 'greedy', got {o!r}")
    return out


class SingleAgentEnv(gym.Env):
    """The learner's seat of a four-player hand; the other three seats are fixed agents.

    Args:
        opponents: one agent or spec for all three other seats, or three (in seat order after the
            learner: right, across, left).
        seat: the learner's seat 0..3, or None to draw it per hand.
        shaping: None, ``"deficiency"`` or ``"deficiency_tiles"`` (:mod:`mjenv.shaping`), applied between the
            learner's decisions (module docstring).
        gamma: the learner's discount per ``step`` of this env, in (0, 1], used by the shaping.
        rules, observation, illegal_action: passed to :func:`mjenv.parallel_env`.
        render_mode: None, ``"ansi"``, ``"human"`` or ``"rgb_array"`` (the learner's view).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        opponents: Any = "greedy",
        seat: int | None = 0,
        rules: Any = "basic",
        shaping: str | None = None,
        gamma: float = 1.0,
        observation: str = "default",
        illegal_action: str = "penalize",
        render_mode: str | None = None,
    ):
        import mjenv
        from mjenv.shaping import Potential, check_gamma, check_shaping

        check_shaping(shaping)
        self.gamma = check_gamma(gamma)
        self.shaping = shaping
        if seat is not None and seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be None (drawn per hand) or 0..3, got {seat!r}")
        self.fixed_seat = seat
        # the base env stays unshaped: its shaping would discount per env step, not per learner decision
        self.env = mjenv.parallel_env(rules=rules, observation=observation, illegal_action=illegal_action,
                                      render_mode=render_mode, render_seat=None)
        self._phi = None if shaping is None else Potential(shaping, self.env.spec.rules)
        self._potential = 0.0  # Phi of the learner's last decision state
        #: env steps played (every seat's step counts once), over all hands since construction
        self.env_steps = 0
        self.render_mode = render_mode
        self.opponents = _make_opponents(opponents, self.env.spec.rules)
        space = self.env.observation_space(AGENTS[0])
        self.observation_space = space["observation"]
        self.action_space = gym.spaces.Discrete(self.env.action_space(AGENTS[0]).n)
        self.pass_action = int(self.action_space.n) - 1
        self.seat = 0 if seat is None else seat
        self._obs: dict | None = None
        self._infos: dict | None = None

    # -- helpers ----------------------------------------------------------------------------------

    def _seat_agents(self) -> dict[int, Any]:
        """Absolute seat -> opponent agent (opponents listed right, across, left of the learner)."""
        return {(self.seat + 1 + k) % 4: agent for k, agent in enumerate(self.opponents)}

    def _learner_decides(self) -> bool:
        return int(self._obs[AGENTS[self.seat]]["action_mask"].sum()) > 1

    def _play_others(self, learner_action: int | None) -> tuple[float, bool]:
        """One env step with the learner's action and the opponents' choices; (learner reward, over).

        Seats with a single legal action (and the learner, with ``learner_action=None``) are left out of
        the action dict: the env plays a left-out seat's only legal action, which is usually PASS but can
        be a forced discard, where sending PASS would be an illegal action.
        """
        actions = {}
        for s, agent in self._seat_agents().items():
            if AGENTS[s] not in self.env.agents:  # Sichuan bloody battle (issue 12): it has won and left
                continue
            o = self._obs[AGENTS[s]]
            if int(o["action_mask"].sum()) > 1:
                actions[AGENTS[s]] = agent.act(o)
        if learner_action is not None:
            actions[AGENTS[self.seat]] = int(learner_action)
        self._obs, rewards, terms, truncs, self._infos = self.env.step(actions)
        self.env_steps += 1
        return float(rewards[AGENTS[self.seat]]), bool(terms[AGENTS[self.seat]] or truncs[AGENTS[self.seat]])

    def _advance(self) -> tuple[float, bool]:
        """Play the learner's forced steps (one legal action) until it decides or the hand ends."""
        total, over = 0.0, False
        while not over and not self._learner_decides():
            r, over = self._play_others(None)
            total += r
        return total, over

    def _learner_potential(self, over: bool) -> float:
        """Phi of the learner's current state (0 when the hand is over or without shaping)."""
        if over or self._phi is None:
            return 0.0
        return float(self._phi(self._obs[AGENTS[self.seat]]["observation"]))

    def _info(self) -> dict[str, Any]:
        info = dict(self._infos[AGENTS[self.seat]])
        if self._phi is not None:
            info["potential"] = self._potential
        info["action_mask"] = self.action_masks()
        info["seat"] = self.seat
        return info

    # -- gymnasium API ----------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """bool[A] legal actions of the learner now (sb3-contrib's ``MaskablePPO`` calls this)."""
        if self._obs is None:
            raise ValueError("action_masks() before reset(); call reset() first")
        return self._obs[AGENTS[self.seat]]["action_mask"].astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        env_seed = None if seed is None else int(self.np_random.integers(2**31 - 1))
        if seed is not None:
            for k, agent in enumerate(self.opponents):
                if hasattr(agent, "reset"):
                    agent.reset(int(self.np_random.integers(2**31 - 1)) + k)
        while True:
            if self.fixed_seat is None:
                self.seat = int(self.np_random.integers(4))
            self._obs, self._infos = self.env.reset(seed=env_seed)
            env_seed = None  # a redeal continues the env's generator
            _, over = self._advance()
            if not over:
                break
        self._potential = self._learner_potential(False)
        return self._obs[AGENTS[self.seat]]["observation"], self._info()

    def step(self, action):
        if self._obs is None:
            raise ValueError("step() before reset(); call reset() first")
        if not self.action_space.contains(action):
            raise ValueError(f"action must be an int in 0..{self.action_space.n - 1}, got {action!r}")
        reward, over = self._play_others(int(action))
        if not over:
            more, over = self._advance()
            reward += more
        if self._phi is not None:
            # potential-based in the learner's own decision process: its gamma, one step per decision
            new = self._learner_potential(over)
            reward += self.gamma * new - self._potential
            self._potential = new
        obs = self._obs[AGENTS[self.seat]]["observation"]
        return obs, reward, over, False, self._info()

    def render(self):
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def mask_fn(env: gym.Env) -> np.ndarray:
    """The learner's mask of a (possibly wrapped) :class:`SingleAgentEnv`, for sb3-contrib's ``ActionMasker``."""
    return env.unwrapped.action_masks()


__all__: Sequence[str] = ["SingleAgentEnv", "mask_fn"]
