"""Many hands of four-player Mahjong stepped together, observed in one writer call per step.

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
later ``reset()`` calls (a test compares them step by step). A step is the PettingZoo envs' own
end of step (:func:`mjenv.tables.step_tables`) over all tables at once, on either engine: every
table's actions are checked before any table moves (a ``ValueError`` leaves every table as it was),
then the games move and all new states (the final states of ended hands and the first states of the
hands dealt in their place included) are observed in ONE call of the observation writer: one C call
with the compiled kernel, one batched feature evaluation on the numpy path.

A ``gymnasium.vector.VectorEnv``: ``num_envs``, ``single_observation_space`` /
``single_action_space`` (one seat's, as the PettingZoo env's), batched ``observation_space`` /
``action_space`` with a leading ``(num_envs, 4)``, and an explicit autoreset mode,
``metadata["autoreset_mode"] = AutoresetMode.SAME_STEP``: when a hand ends, ``step`` returns its
rewards and ``terminations[i] = True`` together with the first observation of the next hand; the
final observation is in ``infos["final_obs"]`` and the end-of-hand results (``scores``, ``winners``,
``illegal_action``, all ``[num_envs, 4]``) are in ``infos["final_info"]``, valid where
``infos["_final_obs"]`` / ``infos["_final_info"]`` are True. Hands never truncate.

Two engines give the same results byte for byte (``tests/test_vector_batch.py``): ``engine="auto"``
(default) runs the tables on the compiled batch step (:mod:`mjenv.vector_batch`: the games as the
arrays of :class:`mjenv.game.batch.BatchGames`, one C call moves them all, their state records are
observed in one writer call) and falls back to the Python engine (:class:`mjenv.tables.PythonTables`
over ``Game`` s; the same :func:`~mjenv.tables.step_tables`) where the batch step does not apply:
``mjenv.game._step`` not built (a one-time warning), rule sets it does not implement (their rooms list
only the Python engine), ``observation="oracle"`` and ``log_dir``. ``engine="compiled"`` raises a ``ValueError``
there instead; ``engine="python"`` forces the Python engine; ``venv.engine`` says which one runs.

``reset(options=...)`` takes the single env's options (``{"wall": ..., "dealer": d}``), either one
dict for every table or a sequence of ``num_envs`` dicts (or None), one per table; they apply to that
reset only (hands dealt by autoreset use the defaults, as ``reset()`` without options does).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from mjenv import AGENTS, rulesets
from mjenv._extras import reject_unknown_keywords
from mjenv.compiled_table import ENGINES
from mjenv.contract import vector_final_infos, vector_infos
from mjenv.env import ENV_OBSERVATIONS, _Output
from mjenv.observation import ObservationSpec
from mjenv.tables import PythonTables, _Table, step_tables, table_seeds_and_options

__all__ = ["AsyncSteps", "MahjongVectorEnv", "vector_env"]


class AsyncSteps:
    """gymnasium's async pair for a vector env: :meth:`step_async` starts the env's step on a worker thread of its own
    and returns at once, :meth:`step_wait` returns what the step returned (or raises what it raised). A compiled
    engine steps with the GIL released, so a learner's inference can run meanwhile; the Python engine holds it (the
    same results, no overlap). While a step is pending, ``step``, ``reset`` and another ``step_async`` raise a
    ``ValueError``; ``close`` lets it finish first.

    A class using it keeps its step in ``_step`` (what ``step`` runs after :meth:`_no_step_pending`) and calls
    :meth:`_close_async` from ``close_extras``.
    """

    _stepping = None  # the pending step (a Future of the one worker thread)
    _worker = None

    def _no_step_pending(self, what: str) -> None:
        if self._stepping is not None:
            raise ValueError(f"{what}() while a step_async() step is pending; call step_wait() first")

    def step_async(self, actions) -> None:
        """Start :meth:`step` on the worker thread and return at once.

        Args:
            actions: as :meth:`step` (copied: the caller may reuse its buffer).

        Raises:
            ValueError: a step is already pending (call :meth:`step_wait` first).
        """
        self._no_step_pending("step_async")
        if self._worker is None:
            from concurrent.futures import ThreadPoolExecutor

            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mjenv-vector")
        self._stepping = self._worker.submit(self._step, np.array(actions, copy=True))

    def step_wait(self, **kwargs):
        """The pending :meth:`step_async` step's returns (:meth:`step`'s).

        Raises:
            ValueError: no step is pending; and whatever the step raised.
        """
        if self._stepping is None:
            raise ValueError("step_wait() without a pending step_async()")
        pending, self._stepping = self._stepping, None
        return pending.result()

    def _close_async(self) -> None:
        """Let a pending step finish (what it raised is dropped) and stop the worker thread."""
        if self._stepping is not None:
            self._stepping.exception()
            self._stepping = None
        if self._worker is not None:
            self._worker.shutdown()
            self._worker = None


class MahjongVectorEnv(AsyncSteps, VectorEnv):
    """``num_envs`` independent tables (see the module docstring).

    Args:
        num_envs: number of tables, >= 1.
        rules, observation, shaping, gamma, illegal_action, log_dir: as :func:`mjenv.parallel_env`
            (``observation="planes"``: float32[N, 4, C, T] tile planes of the default observation, :mod:`mjenv.planes`).
        engine: ``"auto"`` (the compiled batch step where it applies, else the Python engine),
            ``"compiled"`` (the batch step or a ``ValueError`` saying why not) or ``"python"``; see
            :data:`ENGINES`. Both give the same results byte for byte.
        num_threads: threads that step and observe the tables on the compiled engine, with the GIL released
            (default 1; the results are the same for every number). The Python engine runs on one. With more
            than one, the helper threads wait awake for up to 200 us after each step (yielding their core now
            and then) before they sleep: use at most as many threads as free cores.

    Attributes:
        engine: the engine the tables run on, ``"compiled"`` or ``"python"``.
        num_threads: the threads that step the tables (1 on the Python engine).
        tables: the ``mjenv.tables._Table`` s (Python engine only).
        planes: the :class:`~mjenv.planes.PlaneSpec` of ``observation="planes"``, else None.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        rules: Any = "basic",
        observation: str = "default",
        shaping: str | None = None,
        gamma: float = 1.0,
        illegal_action: str = "penalize",
        log_dir: str | None = None,
        engine: str = "auto",
        num_threads: int = 1,
        **unknown,
    ):
        reject_unknown_keywords("mjenv.vector_env", unknown, MahjongVectorEnv.__init__)
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or not 0 < num_threads < 257:
            raise ValueError(f"num_threads must be an int in 1..256, got {num_threads!r}")
        self.num_envs = int(num_envs)
        self.possible_agents = list(AGENTS)
        self.render_mode = None
        self._output = _Output(None, log_dir, None)
        if observation not in ENV_OBSERVATIONS:
            raise ValueError(f"observation must be one of {ENV_OBSERVATIONS}, got {observation!r}")
        self.planes = None
        if observation == "planes":  # derived from the default observation, as the PettingZoo envs' planes
            from mjenv.planes import plane_spec

            self.planes, observation = plane_spec(rules), "default"
        first = _Table(rules, observation, shaping, gamma, illegal_action)
        self._batch = _batch_tables(engine, self.num_envs, first, log_dir, int(num_threads))
        self.engine = "python" if self._batch is None else "compiled"
        self.num_threads = 1 if self._batch is None else int(num_threads)
        if self._batch is None:
            self.tables = [first] + [_Table(rules, observation, shaping, gamma, illegal_action)
                                     for _ in range(self.num_envs - 1)]
        #: the engine :func:`mjenv.tables.step_tables` steps (one path for both)
        self._tables = self._batch if self._batch is not None else PythonTables(self.tables, self._output)
        self.rules, self.layout = first.rules, first.layout
        self.spec: ObservationSpec = first.spec
        n_act = self.layout.size
        box = (self.spec if self.planes is None else self.planes).space
        self.single_observation_space = spaces.Dict(
            {
                "observation": box,
                "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(n_act)
        lead = (self.num_envs, 4)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    np.broadcast_to(box.low, (*lead, *box.shape)), np.broadcast_to(box.high, (*lead, *box.shape)),
                    (*lead, *box.shape), np.float32,
                ),
                "action_mask": spaces.Box(0, 1, (*lead, n_act), np.int8),
            }
        )
        self.action_space = spaces.MultiDiscrete(np.full(lead, n_act))
        self._started = False

    def _infos(self) -> dict[str, np.ndarray]:
        # no table is over between steps (ended hands are dealt again at once): mjenv.contract's infos of its arrays
        tables = self._tables
        return vector_infos(tables.acting_bits(), tables.deficiency, tables.won if tables.plays_on else None)

    def reset(self, seed: int | Sequence[int] | None = None, options: dict | Sequence[dict | None] | None = None):
        """Deal a new hand at every table.

        Args:
            seed: None (continue each table's generator), an int s (table i gets s + i) or one seed per
                table.
            options: None, one options dict for every table (``{"wall": ..., "dealer": d}``, as
                :func:`mjenv.parallel_env`'s ``reset``), or a sequence of ``num_envs`` dicts or None.

        Returns:
            (observations, infos): ``{"observation": float32[N, 4, D], "action_mask": int8[N, 4, A]}`` and
            ``{"needs_action": bool[N, 4], "deficiency": int64[N, 4], "potential": float32[N, 4]}``.

        Raises:
            ValueError: bad seeds or options (nothing is dealt then); a :meth:`step_async` step pending.
        """
        self._no_step_pending("reset")
        n = self.num_envs
        seeds, per_table = table_seeds_and_options(seed, options, n)
        self._tables.deal(range(n), seeds, per_table)
        self._tables.observe(None)
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions):
        """Apply one action per seat at every table.

        Args:
            actions: int[N, 4]; seats that are not deciding must send PASS (their only legal action).

        Returns:
            (observations, rewards float32[N, 4], terminations bool[N], truncations bool[N], infos); see the
            module docstring for autoreset.

        Raises:
            ValueError: a bad shape or dtype, an action outside the action space or (with
                ``illegal_action="raise"``) an illegal action, in any table; no table has moved then. A
                :meth:`step_async` step pending.
        """
        self._no_step_pending("step")
        return self._step(actions)

    def _step(self, actions):
        if not self._started:
            raise ValueError("step() before reset(); call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs, 4) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an int array of shape ({self.num_envs}, 4), got {acts.dtype} {acts.shape}"
            )
        if acts.dtype.kind == "u" and acts.size and acts.max() >= self.layout.size:  # before any int64 cast
            i, s = (int(x) for x in np.argwhere(acts >= self.layout.size)[0])
            raise ValueError(f"table {i}: {AGENTS[s]}: action {int(acts[i, s])} is outside the action space "
                             f"0..{self.layout.size - 1}")
        if self._batch is not None:  # the compiled step's few C calls (None: the checked path below decides)
            fast = self._batch.step(acts)
            if fast is not None:
                return self._returns(*fast)
        r = step_tables(self._tables, acts, autoreset=True)
        return self._returns(r.rewards.astype(np.float32), r.done, r.final_obs, r.final_masks, r.scores, r.winners,
                             r.illegal, self._infos())

    def _returns(self, rewards, done, final_obs, final_masks, scores, winners, illegal, infos: dict[str, Any]):
        """step()'s five returns from the step's arrays (fresh ones) and the infos of the new states."""
        if self.planes is not None:
            final_obs = self.planes.planes(final_obs)
        vector_final_infos(infos, done, final_obs, final_masks, scores, winners, illegal)
        truncations = np.zeros(self.num_envs, dtype=bool)
        return self._observations(), rewards, done, truncations, infos

    def _observations(self) -> dict[str, np.ndarray]:
        """The tables' observations as the env hands them (flat, or planes of all of them in one call)."""
        obs = self._tables.observations()
        if self.planes is not None:
            obs = {**obs, "observation": self.planes.planes(obs["observation"])}
        return obs

    def close_extras(self, **kwargs) -> None:
        self._close_async()


_warned_no_step = False


def _batch_tables(engine: str, num_envs: int, table: _Table, log_dir: str | None, num_threads: int = 1):
    """The compiled batch step's tables (``mjenv.vector_batch``), or None for the Python engine.

    ``"auto"`` falls back to the Python engine where the batch step does not apply (a one-time
    warning when ``mjenv.game._step`` is not built); ``"compiled"`` raises a ``ValueError`` saying why.
    """
    global _warned_no_step
    from mjenv.game import batch

    if engine == "python":
        return None
    why = None
    if not batch.available():
        why = "mjenv.game._step is not built (no C compiler when mjenv was installed)"
        if engine == "auto" and not _warned_no_step:
            _warned_no_step = True
            warnings.warn(f"mjenv: {why}; the vector env runs on the Python engine (same results, slower). "
                          "Install a C compiler and reinstall mjenv to build it.", RuntimeWarning, stacklevel=4)
    elif log_dir is not None:
        why = "log_dir: the batch step keeps no game log"
    elif table.spec._game_views:
        why = "observation='oracle': its wall view is computed from a Game"
    if why is None:
        from mjenv.vector_batch import BatchTables

        try:
            return BatchTables(num_envs, table.spec, table.shaping, table.gamma, table.illegal_action, num_threads)
        except ValueError as e:  # a rule set the batch step does not implement
            why = str(e)
    if engine == "compiled":
        raise ValueError(f"engine='compiled' is not available here: {why}; use engine='auto' or 'python'")
    return None


def vector_env(num_envs: int, **kwargs) -> MahjongVectorEnv:
    """``num_envs`` tables stepped together (keyword arguments of :func:`mjenv.parallel_env`, and ``engine``;
    a rule set whose room brings its own env shells builds its own, :func:`mjenv.rulesets.own_engine`)."""
    own = rulesets.own_engine(kwargs.get("rules", "basic"))
    if own is not None:
        return own.make_vector_env(num_envs, **kwargs)
    return MahjongVectorEnv(num_envs, **kwargs)
