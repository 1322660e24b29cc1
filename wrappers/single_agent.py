"""One learning seat against fixed agents, as a plain gymnasium environment (sb3-contrib MaskablePPO).

```python
from mjenv.wrappers import SingleAgentEnv
env = SingleAgentEnv(opponents="greedy")         # the three other seats are GreedyAgents
obs, info = env.reset(seed=0)                     # obs: float32[N], the learner's observation
mask = env.action_masks()                         # bool[A]: what MaskablePPO asks for
obs, reward, terminated, truncated, info = env.step(action)
```

Each episode is one episode of :func:`mjenv.parallel_env` (one hand with the shared engine; a room may play
more, as its ``episode=`` argument says). The learner sits at ``seat`` (a fixed seat
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
``shaping="deficiency"``). ``shaping_scale=c`` multiplies the potential by ``c`` (``F = c * (gamma *
Phi(s_next) - Phi(s))``, still potential-based: the discounted sum is ``-c * Phi(s_0)``); With
``c = 1/15`` a step of deficiency is worth 1/15 point, on the scale of a hand's score.

**Scaled observation.** ``scale_observation=True`` hands the learner the observation divided by the
bounds of its views (:class:`ObservationScaler`): each view's non-negative entries by the ``high`` of its
documented range (tile counts by 4, the wall count by 108, ...), the deficiency views after a cap at
:data:`mjenv.env.POTENTIAL_CAP` (15, the shaping potential's cap: the ``99 = incompletable`` code becomes
1, a deficiency of 3 becomes 0.2 rather than 0.03) by 15; the ``-1 = not applicable`` entries stay -1.
Every entry is then in [-1, 1], which a plain MLP (sb3's ``MlpPolicy``) needs. The default (False)
keeps the observation as documented. The shaping and ``info`` always read the raw observation.
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


def _env_keywords(rules: Any) -> tuple[str, ...]:
    """The keywords :func:`mjenv.parallel_env` takes for ``rules``: the shared env's, or the room's ``ARGUMENTS``
    where the room brings its own engine."""
    from mjenv import rulesets
    from mjenv._extras import keyword_names

    own = rulesets.own_engine(rules)
    if own is not None:
        return tuple(own.ARGUMENTS)
    from mjenv.env import MahjongParallelEnv

    return tuple(keyword_names(MahjongParallelEnv.__init__))


def _check_env_keywords(env_kwargs: dict, rules: Any) -> None:
    """Refuse the keywords of ``SingleAgentEnv(**env_kwargs)`` that neither it nor the env for ``rules`` takes (and
    ``render_seat``: the learner's view is rendered), naming both lists."""
    from mjenv._extras import UnknownKeywordError, keyword_names

    if "render_seat" in env_kwargs:
        raise ValueError("SingleAgentEnv renders the learner's view: render_seat is not an argument of it")
    mine = keyword_names(SingleAgentEnv.__init__)
    env_only = [k for k in _env_keywords(rules) if k not in mine and k != "render_seat"]
    unknown = [k for k in env_kwargs if k not in env_only]
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        more = f"; and the env's own for these rules: {', '.join(env_only)}" if env_only else ""
        raise UnknownKeywordError(f"SingleAgentEnv got unknown keyword argument(s) {names}; allowed: "
                                  f"{', '.join(mine)}{more}")


class SingleAgentEnv(gym.Env):
    """The learner's seat of a four-player hand; the other three seats are fixed agents.

    Args:
        opponents: one agent or spec for all three other seats, or three (in seat order after the
            learner: right, across, left).
        seat: the learner's seat 0..3, or None to draw it per hand.
        shaping: None, ``"deficiency"`` or ``"deficiency_tiles"`` (:mod:`mjenv.shaping`), applied between the
            learner's decisions (module docstring).
        gamma: the learner's discount per ``step`` of this env, in (0, 1], used by the shaping.
        shaping_scale: positive factor of the potential (module docstring); 1 = the potential as defined.
        scale_observation: hand out the observation divided by its views' bounds, in [-1, 1] (module
            docstring); False = the raw observation.
        rules: passed to :func:`mjenv.parallel_env`: a shared rule set, or a room with its own engine (its
            observation, shaping potential, PASS id and agents are read from the env and the registry).
        observation: passed to :func:`mjenv.parallel_env`.
        illegal_action: passed to :func:`mjenv.parallel_env`.
        render_mode: None, ``"ansi"``, ``"human"`` or ``"rgb_array"`` (the learner's view).
        **env_kwargs: other arguments of :func:`mjenv.parallel_env` for these rules (a room's own, such as the
            episode and reward of a room that plays whole games); unknown ones are refused, naming this class's and
            the env's. Its shaping stays off (``shaping`` here is the learner's), and ``render_seat`` is the
            learner's.
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
        shaping_scale: float = 1.0,
        scale_observation: bool = False,
        **env_kwargs,
    ):
        import mjenv
        from mjenv.shaping import Potential, check_gamma, check_shaping

        _check_env_keywords(env_kwargs, rules)

        check_shaping(shaping)
        self.gamma = check_gamma(gamma)
        self.shaping = shaping
        if isinstance(shaping_scale, bool) or not isinstance(shaping_scale, (int, float)) \
                or not np.isfinite(shaping_scale) or shaping_scale <= 0:
            raise ValueError(f"shaping_scale must be a positive finite number, got {shaping_scale!r}")
        self.shaping_scale = float(shaping_scale)
        if not isinstance(scale_observation, bool):
            raise ValueError(f"scale_observation must be True or False, got {scale_observation!r}")
        if seat is not None and seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be None (drawn per hand) or 0..3, got {seat!r}")
        self.fixed_seat = seat
        # the base env stays unshaped: its shaping would discount per env step, not per learner decision
        # other keywords are the env's (a room's own, e.g. episode= and reward= of one that plays whole games)
        self.env = mjenv.parallel_env(rules=rules, observation=observation, illegal_action=illegal_action,
                                      render_mode=render_mode, render_seat=None, **env_kwargs)
        self._phi = None if shaping is None else Potential(shaping, spec=self.env.spec)
        self._potential = 0.0  # Phi of the learner's last decision state
        #: env steps played (every seat's step counts once), over all hands since construction
        self.env_steps = 0
        self.render_mode = render_mode
        self.opponents = _make_opponents(opponents, rules)
        space = self.env.observation_space(AGENTS[0])
        self.observation_space = space["observation"]
        self._scaler = ObservationScaler(self.env.spec) if scale_observation else None
        if self._scaler is not None:
            self.observation_space = gym.spaces.Box(self._scaler(self.observation_space.low),
                                                    self._scaler(self.observation_space.high),
                                                    self.observation_space.shape, np.float32)
        self.action_space = gym.spaces.Discrete(self.env.action_space(AGENTS[0]).n)
        # PASS is not the last id: a room's own actions may come after it
        self.pass_action = self.env.pass_action
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
            if AGENTS[s] not in self.env.agents:  # it has won and left (the hand plays on)
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
        """``shaping_scale * Phi`` of the learner's current state (0 when the hand is over or without shaping)."""
        if over or self._phi is None:
            return 0.0
        return self.shaping_scale * float(self._phi(self._obs[AGENTS[self.seat]]["observation"]))

    def _learner_observation(self) -> np.ndarray:
        obs = self._obs[AGENTS[self.seat]]["observation"]
        return obs if self._scaler is None else self._scaler(obs)

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
        return self._learner_observation(), self._info()

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
        return self._learner_observation(), reward, over, False, self._info()

    def render(self):
        return self.env.render()

    def close(self) -> None:
        self.env.close()


class ObservationScaler:
    """Maps observations of one spec into [-1, 1]: ``ObservationScaler(spec)(observation)``.

    Per entry, ``min(observation, cap) / scale`` where the observation is >= 0 and ``observation /
    low_scale`` where it is negative (only the ``-1 = not applicable`` entries, which thus stay -1).
    Deficiency views (documented up to ``INCOMPLETABLE``) get ``cap = scale = POTENTIAL_CAP``; every other
    view ``cap = inf`` and ``scale`` the ``high`` of its documented range; ``low_scale`` is ``|low|`` (1
    where ``low = 0``).

    Args:
        spec: an observation spec (``env.spec``: :class:`mjenv.observation.ObservationSpec` or a room's own, with
            ``views``, ``view(name)``, ``slices`` and ``size``), or a shared rule set (its name or ``Rules``).
    """

    def __init__(self, spec: Any = "basic"):
        from mjenv.deficiency import INCOMPLETABLE
        from mjenv.env import POTENTIAL_CAP
        from mjenv.observation import ObservationSpec
        from mjenv.rules import Rules

        if isinstance(spec, (str, Rules)):  # a rule set: its shared spec (else a spec, a room's own one too)
            spec = ObservationSpec(spec)
        self.cap = np.full(spec.size, np.inf, np.float32)
        self.scale = np.ones(spec.size, np.float32)
        self.low_scale = np.ones(spec.size, np.float32)
        for name in spec.views:
            view, sl = spec.view(name), spec.slices[name]
            if view.high == INCOMPLETABLE:  # the deficiency's 99 code is "more than the cap"
                self.cap[sl] = self.scale[sl] = POTENTIAL_CAP
            else:
                self.scale[sl] = max(view.high, 1)
            self.low_scale[sl] = max(-view.low, 1)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        """float32[..., N] raw observations -> float32[..., N] scaled ones, in [-1, 1]."""
        obs = np.asarray(observation, dtype=np.float32)
        if obs.shape[-1] != self.scale.size:
            raise ValueError(f"observation must have {self.scale.size} entries (this spec), got shape {obs.shape}")
        return np.where(obs < 0, obs / self.low_scale, np.minimum(obs, self.cap) / self.scale).astype(np.float32)


def mask_fn(env: gym.Env) -> np.ndarray:
    """The learner's mask of a (possibly wrapped) :class:`SingleAgentEnv`, for sb3-contrib's ``ActionMasker``."""
    return env.unwrapped.action_masks()


__all__: Sequence[str] = ["SingleAgentEnv", "mask_fn", "ObservationScaler"]
