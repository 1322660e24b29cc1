"""Many hands of four-player Mahjong stepped together, with one batched deficiency-feature call per step.

```python
import mjenv
venv = mjenv.vector_env(16, rules="basic")              # 16 independent tables
obs, infos = venv.reset(seed=0)                          # table i is seeded with seed + i
# obs["observation"]: float32[16, 4, N], obs["action_mask"]: int8[16, 4, A] (seat-relative, per seat)
actions = ...                                            # int[16, 4]: one action per seat (PASS if not deciding)
obs, rewards, terminations, truncations, infos = venv.step(actions)   # rewards float32[16, 4]
```

Each table is exactly :func:`mjenv.parallel_env` with the same arguments: table ``i`` after
``reset(seed=s)`` deals, observes and rewards as ``mjenv.parallel_env().reset(seed=s + i)`` and its
later ``reset()`` calls (a test compares them step by step). With the compiled kernel
(``mjenv.deficiency.kernel``, the default) each table observes itself in one C call per step, the
single env's own transition, and the vector env stacks the results. Without it (numpy path,
``batched`` is True) the expensive part is batched: after the games have moved, the deficiency
features of all ``4 * num_envs`` seats (and of the final states of hands that just ended) are computed
in ONE call of the observation module's feature engine (``DeficiencyFeatures.compute``), whose new suit
configurations are evaluated in one table pass over all tables instead of one pass per table, and all
tables' observations are encoded together (``ObservationSpec.encode_batch``).

Gymnasium vector conventions: ``num_envs``, ``single_observation_space`` / ``single_action_space``
(one seat's, as the PettingZoo env's), batched ``observation_space`` / ``action_space`` with a leading
``(num_envs, 4)``, and an explicit autoreset mode, ``metadata["autoreset_mode"] =
AutoresetMode.SAME_STEP``: when a hand ends, ``step`` returns its rewards and ``terminations[i] =
True`` together with the first observation of the next hand; the final observation is in
``infos["final_obs"]`` and the end-of-hand results (``scores``, ``winners``, ``illegal_action``, all
``[num_envs, 4]``) are in ``infos["final_info"]``, valid where ``infos["_final_obs"]`` /
``infos["_final_info"]`` are True. Hands never truncate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mjenv.deficiency import kernel as _kernel
from mjenv.env import AGENTS, ILLEGAL_REWARD, _Table, potential
from mjenv.knowledge import knowledge_bases
from mjenv.observation import ObservationSpec

__all__ = ["MahjongVectorEnv", "vector_env"]


class _DeferredTable(_Table):
    """A table whose deficiency features and observations come from the vector env's batched calls.

    ``_Table._refresh`` runs unchanged (masks, potentials exactly as in the single env); only its
    ``spec.seat_features`` and ``spec.encode_all`` calls return the features and observations the
    vector env computed for all tables at once. A refresh requested by the table itself (inside
    ``reset``) is deferred until those are there.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._injected: dict | None = None
        self._injected_obs: np.ndarray | None = None
        self.stale = True
        self.spec.seat_features = self._injected_features  # instance attributes: shadow the methods
        self.spec.encode_all = self._injected_encode

    def _injected_features(self, game, knowledge_bases) -> dict:
        return self._injected

    def _injected_encode(self, game, knowledge_bases=None, features=None) -> np.ndarray:
        return self._injected_obs

    def _refresh(self) -> None:
        if self._injected is None:
            self.stale = True
            return
        super()._refresh()
        self._injected = None
        self.stale = False

    def refresh_with(self, features: dict, obs: np.ndarray) -> None:
        """Refresh observations, masks and potentials from precomputed features and observations
        (float32[4, size]) of this state."""
        self._injected = features
        self._injected_obs = obs
        self._refresh()


class _InputRecorder:
    """Stands in for the feature engine to capture the inputs ``ObservationSpec.seat_features`` builds.

    The observation module owns how a game state turns into feature inputs (whose turn it is to
    discard, which discard can be claimed, who may chow); recording them keeps that logic in one
    place while the vector env evaluates the inputs of all tables in one engine call.
    """

    def __init__(self) -> None:
        self.inputs: tuple | None = None

    def compute(self, *inputs):
        self.inputs = inputs
        return None


class MahjongVectorEnv:
    """``num_envs`` independent tables (see the module docstring).

    Args:
        num_envs: number of tables, >= 1.
        rules, observation, shaping, gamma, illegal_action, log_dir: as :func:`mjenv.parallel_env`.
    """

    def __init__(
        self,
        num_envs: int,
        rules: Any = "basic",
        observation: str = "default",
        shaping: str | None = None,
        gamma: float = 1.0,
        illegal_action: str = "penalize",
        log_dir: str | None = None,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        from gymnasium import spaces
        from gymnasium.vector import AutoresetMode

        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
        self.num_envs = int(num_envs)
        self.possible_agents = list(AGENTS)
        # With the compiled kernel every table builds its own observations in one C call per step and
        # there is nothing left to batch; without it (numpy path) the tables' features go through one
        # batched engine call per step (_DeferredTable).
        self.batched = not _kernel.available()
        table = _DeferredTable if self.batched else _Table
        self.tables = [
            table(rules, None, observation, shaping, gamma, illegal_action, log_dir, None)
            for _ in range(self.num_envs)
        ]
        first = self.tables[0]
        self.rules, self.layout = first.rules, first.layout
        self.spec: ObservationSpec = first.spec
        self.features = self.spec.features  # the engine every table's features go through
        self._recording_spec = ObservationSpec(self.rules, oracle=self.spec.oracle)
        self._recorder = _InputRecorder()
        self._recording_spec.__dict__["features"] = self._recorder  # overrides the cached_property
        size, n_act = self.spec.size, self.layout.size
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(self.spec.low, self.spec.high, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(n_act)
        lead = (self.num_envs, 4)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    np.broadcast_to(self.spec.low, (*lead, size)), np.broadcast_to(self.spec.high, (*lead, size)),
                    (*lead, size), np.float32,
                ),
                "action_mask": spaces.Box(0, 1, (*lead, n_act), np.int8),
            }
        )
        self.action_space = spaces.MultiDiscrete(np.full(lead, n_act))
        self._started = False

    # -- the batched refresh ----------------------------------------------------------------------

    def _features(self, games: list) -> list[tuple[np.ndarray, dict]]:
        """Observations and deficiency features of many game states: one engine call, one batched encode.

        Returns:
            per game: (obs float32[4, size], features dict of [4, ...] arrays as ``seat_features`` returns).
        """
        if not games:
            return []
        kbs_all, inputs = [], []
        for g in games:
            kbs = np.asarray(knowledge_bases(g), dtype=np.int8)
            self._recording_spec.seat_features(g, kbs)
            kbs_all.append(kbs)
            inputs.append(self._recorder.inputs)
        stacked = [np.concatenate([np.asarray(x[j]) for x in inputs]) for j in range(len(inputs[0]))]
        feats = self.features.compute(*stacked)  # the one core call
        obs = self.spec.encode_batch(games, np.stack(kbs_all), feats)  # all tables' observations at once
        return [(obs[i], {k: v[4 * i : 4 * i + 4] for k, v in feats.items()}) for i in range(len(games))]

    def _batch_obs(self) -> dict[str, np.ndarray]:
        return {
            "observation": np.stack([t.obs for t in self.tables]),
            "action_mask": np.stack([t.masks for t in self.tables]),
        }

    def _infos(self) -> dict[str, np.ndarray]:
        deficiency = np.stack([t.deficiency for t in self.tables]).astype(np.int64)
        # no table is over between steps (ended hands are dealt again at once): Phi = potential(deficiency)
        return {
            "needs_action": np.array([[s in t.acting for s in range(4)] for t in self.tables]),
            "deficiency": deficiency,
            "potential": potential(deficiency).astype(np.float32),
        }

    # -- API ----------------------------------------------------------------------------------------

    def reset(self, seed: int | Sequence[int] | None = None, options: dict | None = None):
        """Deal a new hand at every table.

        Args:
            seed: None (continue each table's generator), an int s (table i gets s + i) or one seed per
                table.

        Returns:
            (observations, infos): ``{"observation": float32[N, 4, D], "action_mask": int8[N, 4, A]}`` and
            ``{"needs_action": bool[N, 4], "deficiency": int64[N, 4], "potential": float32[N, 4]}``.
        """
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset got {len(seeds)} seeds for {self.num_envs} tables; give one per table")
        for t, s in zip(self.tables, seeds):
            t.reset(s)
        if self.batched:
            for t, (obs, f) in zip(self.tables, self._features([t.game for t in self.tables])):
                t.refresh_with(f, obs)
        self._started = True
        return self._batch_obs(), self._infos()

    def step(self, actions):
        """Apply one action per seat at every table.

        Args:
            actions: int[N, 4]; seats that are not deciding must send PASS (their only legal action).

        Returns:
            (observations, rewards float32[N, 4], terminations bool[N], truncations bool[N], infos); see the
            module docstring for autoreset.
        """
        if not self._started:
            raise ValueError("step() before reset(); call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs, 4) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an int array of shape ({self.num_envs}, 4), got {acts.dtype} {acts.shape}"
            )
        if not self.batched:
            return self._step_each(acts)
        n = self.num_envs
        rewards = np.zeros((n, 4), dtype=np.float64)
        before = np.zeros((n, 4))
        done = np.zeros(n, dtype=bool)
        # phase 1: move every game (what _Table.apply does before its refresh)
        for i, t in enumerate(self.tables):
            chosen = {s: t.check_action(s, acts[i, s]) for s in range(4)}
            before[i] = t.potentials()
            bad = t.illegal(chosen)
            if bad:
                t.ended_by_illegal = True
                t.illegal_seats = bad
                rewards[i, bad] = ILLEGAL_REWARD
            else:
                t.game.step({s: a for s, a in chosen.items() if s in t.acting})
            done[i] = t.over
        # phase 2: finish ended hands (rewards, results, log) and deal the next ones (autoreset), so that
        # live states, final states and first states of new hands all go into the same feature call
        final_obs, scores, winners, illegal = self._end_buffers()
        batch: list = []
        roles: list[tuple[str, int]] = []
        for i, t in enumerate(self.tables):
            if not done[i]:
                batch.append(t.game)
                roles.append(("live", i))
                continue
            if t.ended_by_illegal:  # the env keeps the observation from before the illegal action
                final_obs["observation"][i], final_obs["action_mask"][i] = t.obs, t.masks
                illegal[i, t.illegal_seats] = True
            else:
                rewards[i] += np.asarray(t.game.scores, dtype=np.float64)
                scores[i] = np.asarray(t.game.scores)
                winners[i, [int(w) for w in t.game.winners]] = True
                batch.append(t.game)
                roles.append(("final", i))
            if t.shaping == "deficiency":
                rewards[i] -= before[i]  # gamma * Phi(end) - Phi(s) with Phi(end) = 0
            t.acting = []
            t.write_log()
            t.reset(None)
            batch.append(t.game)
            roles.append(("new", i))
        # phase 3: the one feature call, then install observations and the shaping of live tables
        for (role, i), game, (obs, f) in zip(roles, batch, self._features(batch)):
            t = self.tables[i]
            if role == "final":
                final_obs["observation"][i] = obs
                final_obs["action_mask"][i] = [game.legal_action_mask(s) for s in range(4)]
                continue
            t.refresh_with(f, obs)
            if role == "live" and t.shaping == "deficiency":
                rewards[i] += t.gamma * t.potentials() - before[i]
        return self._outputs(rewards, done, final_obs, scores, winners, illegal)

    def _step_each(self, acts: np.ndarray):
        """``step`` with the compiled kernel: each table applies its actions and observes itself
        (``_Table.apply``, exactly the single env's transition); ended hands are recorded and dealt again."""
        n = self.num_envs
        rewards = np.zeros((n, 4), dtype=np.float64)
        done = np.zeros(n, dtype=bool)
        final_obs, scores, winners, illegal = self._end_buffers()
        for i, (t, row) in enumerate(zip(self.tables, acts.tolist())):
            rewards[i] = t.apply({s: t.check_action(s, row[s]) for s in range(4)})
            if not t.over:
                continue
            done[i] = True
            # the final state's observation (or, after an illegal action, the one before it)
            final_obs["observation"][i], final_obs["action_mask"][i] = t.obs, t.masks
            if t.ended_by_illegal:
                illegal[i, t.illegal_seats] = True
            else:
                scores[i] = t.game.scores
                winners[i, [int(w) for w in t.game.winners]] = True
            t.reset(None)
        return self._outputs(rewards, done, final_obs, scores, winners, illegal)

    def _end_buffers(self):
        """Zeroed per-table records of hands that end this step: final observations, scores, winners,
        illegal-action flags."""
        n = self.num_envs
        final_obs = {
            "observation": np.zeros((n, 4, self.spec.size), dtype=np.float32),
            "action_mask": np.zeros((n, 4, self.layout.size), dtype=np.int8),
        }
        return final_obs, np.zeros((n, 4), dtype=np.int64), np.zeros((n, 4), dtype=bool), np.zeros((n, 4), dtype=bool)

    def _outputs(self, rewards, done, final_obs, scores, winners, illegal):
        infos: dict[str, Any] = self._infos()
        infos["final_obs"] = final_obs
        infos["_final_obs"] = done.copy()
        infos["final_info"] = {"scores": scores, "winners": winners, "illegal_action": illegal}
        infos["_final_info"] = done.copy()
        return self._batch_obs(), rewards.astype(np.float32), done, np.zeros(self.num_envs, dtype=bool), infos

    def close(self) -> None:
        pass


def vector_env(num_envs: int, **kwargs) -> MahjongVectorEnv:
    """``num_envs`` tables stepped together (keyword arguments of :func:`mjenv.parallel_env`)."""
    return MahjongVectorEnv(num_envs, **kwargs)
