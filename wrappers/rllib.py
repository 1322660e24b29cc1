"""Ray RLlib multi-agent PPO on mjenv: a PettingZoo adapter, an action-masking RLModule, a PPO config.

```python
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
from mjenv.wrappers.rllib import RLlibParallelEnv, ppo_config
env = ParallelPettingZooEnv(RLlibParallelEnv(rules="basic"))      # what rllib_env() returns
algo = ppo_config(train_batch_size=512).build_algo()                # one shared masked policy
algo.train()
```

What RLlib needs, and how the adapter (:class:`RLlibParallelEnv`, itself a PettingZoo ``ParallelEnv``)
provides it on top of :func:`mjenv.parallel_env`:

* **Observation keys.** RLlib's masking convention is a ``Dict`` with ``"observations"`` and
  ``"action_mask"``, both float (its connectors batch them as float tensors). The adapter renames
  ``"observation"`` and casts the int8 mask to float32.
* **Who acts.** In RLlib, exactly the agents present in an observation dict send an action at the
  next step. mjenv observes every live seat every step, and most seats have only PASS legal. The
  adapter therefore puts only the seats with a real choice (more than one legal action) into the
  observation dict, fills in PASS for the others, and plays steps where nobody has a choice by itself.
* **Rewards of absent agents.** A seat's rewards from steps at which it was absent are held back and
  paid with its next observation, so no reward is lost (RLlib credits a reward to the agent's last
  action). At the end of the hand every seat that has acted gets its final observation, its pending
  reward and ``terminated = True``.
* **Seats that leave mid-hand** (rule sets that play on after a win, :func:`mjenv.rulesets.plays_on`: a
  winner leaves and the others play on): the seat gets its final observation, its pending reward and
  ``terminated = True`` in the step where it leaves, and is absent afterwards; the hand ends when the base
  env has no agent left.
* **Shaping in each seat's own decision process.** ``shaping`` (``"deficiency"`` or
  ``"deficiency_tiles"``, :mod:`mjenv.shaping`) is applied by the adapter, not by the base env (which
  runs unshaped): each seat's reward at an observation adds ``F = gamma * Phi(s) - Phi(s_prev)``, with
  ``s_prev`` its previous observation (and ``Phi = 0`` with its final observation at the end of the
  hand). RLlib discounts once per observation of an agent, so **pass PPO's ``gamma``** (the
  ``ppo_config`` argument): then each seat's discounted sum of ``F`` over a hand is exactly
  ``-Phi(s_0)`` and the shaping is potential-based (Ng, Harada and Russell 1999).

:class:`MaskedPolicyRLModule` is the same network as the PPO script's (:class:`~mjenv.baselines.policy.PolicyNet`,
masked logits plus the deficiency action-feature head), so RLlib-trained weights load into a
``PolicyAgent`` (:func:`policy_agent_from_module`). Illegal logits are set to the most negative float
rather than ``-inf``, because RLlib's PPO loss computes a KL divergence (``-inf - -inf`` is NaN).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo import ParallelEnv

from mjenv import AGENTS


class RLlibParallelEnv(ParallelEnv):
    """mjenv's parallel env, presenting only the seats with a real choice (see the module docstring).

    Args:
        shaping: None, ``"deficiency"`` or ``"deficiency_tiles"``, applied between each seat's decisions.
        gamma: the learner's discount per decision (RLlib PPO's ``gamma``), used by the shaping.
        **env_kwargs: other arguments of :func:`mjenv.parallel_env` (``rules``, ``observation``, ...; a room with
            its own engine too, with its own arguments).
    """

    metadata = {"name": "mjenv_rllib_v0", "render_modes": [], "is_parallelizable": True}

    def __init__(self, shaping: str | None = None, gamma: float = 0.99, **env_kwargs: Any):
        import mjenv
        from mjenv.shaping import Potential, check_gamma, check_shaping

        check_shaping(shaping)
        self.gamma = check_gamma(gamma)
        # the base env stays unshaped: its shaping would discount per env step, not per decision
        self.env = mjenv.parallel_env(**env_kwargs)
        self._phi = None if shaping is None else Potential(shaping, spec=self.env.spec)
        self._last_phi: dict[str, float] = {}
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        inner = self.env.observation_space(AGENTS[0])
        size, n_act = inner["observation"].shape[0], inner["action_mask"].shape[0]
        # PASS is not the last id: a room's own actions may come after it
        self.pass_action = self.env.pass_action
        self._obs_space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(inner["observation"].low, inner["observation"].high, (size,),
                                               np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (n_act,), np.float32),
            }
        )
        self._act_space = gym.spaces.Discrete(n_act)
        self._raw: dict | None = None
        self._pending = dict.fromkeys(AGENTS, 0.0)
        self._seen: set[str] = set()
        self._done: set[str] = set()  # seats already sent terminated = True this hand
        self._leaving: dict[str, tuple[dict, dict]] = {}  # seat -> (final raw obs, info), not yet sent

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return self._obs_space

    def action_space(self, agent: str) -> gym.spaces.Discrete:
        return self._act_space

    @staticmethod
    def convert(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """mjenv's ``{"observation", "action_mask"}`` -> RLlib's float ``{"observations", "action_mask"}``."""
        return {
            "observations": np.asarray(obs["observation"], dtype=np.float32),
            "action_mask": np.asarray(obs["action_mask"], dtype=np.float32),
        }

    def _deciders(self) -> list[str]:
        live = self.env.agents
        return [a for a in AGENTS if a in live and int(self._raw[a]["action_mask"].sum()) > 1]

    def _base_step(self, actions: dict[str, int]) -> bool:
        """One base-env step: rewards into the pending sums, seats that left noted; True when the hand is over."""
        self._raw, rew, term, _, self._infos = self.env.step(actions)
        for a, r in rew.items():
            self._pending[a] += float(r)
        over = not self.env.agents
        if not over:  # a seat that leaves while the others play on (after its win)
            for a, t in term.items():
                if t and a not in self._done:
                    self._leaving[a] = (self._raw[a], self._infos[a])
        return over

    def _run_forced(self) -> bool:
        """Step while no seat has a choice; True once the hand is over.

        Every seat is left out of the action dict: the env plays each one's only legal action (usually
        PASS, sometimes a forced discard, where sending PASS would be illegal).
        """
        while not self._deciders():
            if self._base_step({}):
                return True
        return False

    def _emit(self, agents: list[str], over: bool = False, raw: dict | None = None) -> tuple[dict, dict]:
        raw = self._raw if raw is None else raw
        if self._phi is not None:
            for a in agents:
                phi = 0.0 if over else float(self._phi(raw[a]["observation"]))
                if a in self._last_phi:
                    self._pending[a] += self.gamma * phi - self._last_phi[a]
                self._last_phi[a] = phi
        obs = {a: self.convert(raw[a]) for a in agents}
        rewards = {a: self._pending[a] for a in agents}
        for a in agents:
            self._pending[a] = 0.0
        self._seen.update(agents)
        return obs, rewards

    def _emit_final(self, seats: list[str]) -> tuple[dict, dict, dict]:
        """Final observations (Phi = 0), pending rewards and infos of seats that are done: a seat that
        left mid-hand from the step where it left, the others from the current step."""
        last = {a: self._leaving.get(a) or (self._raw[a], self._infos[a]) for a in seats}
        obs, rewards = self._emit(seats, over=True, raw={a: last[a][0] for a in seats})
        return obs, rewards, {a: last[a][1] for a in seats}

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._raw, self._infos = self.env.reset(seed=seed, options=options)
        self._pending = dict.fromkeys(AGENTS, 0.0)
        self._seen = set()
        self._done, self._leaving = set(), {}
        self._last_phi = {}
        # a hand that ends before anyone chooses (not possible in the basic rules' deals seen so far)
        # is followed by the next deal, so every episode has at least one decision
        while self._run_forced():
            self._raw, self._infos = self.env.reset()
            self._pending = dict.fromkeys(AGENTS, 0.0)
        self.agents = list(AGENTS)
        obs, _ = self._emit(self._deciders())
        return obs, {a: self._infos[a] for a in obs}

    def step(self, actions: dict[str, Any]):
        if not self.agents:
            raise ValueError("step() after the hand ended; call reset()")
        full = {}  # seats without a choice are left out: the env plays their only legal action
        for a in self._deciders():
            if a not in actions:
                raise ValueError(f"{a} has a choice this step and must send an action")
            full[a] = int(actions[a])
        over = self._base_step(full) or self._run_forced()
        if over:
            done = sorted(self._seen - self._done)
            obs, rewards, infos = self._emit_final(done)
            self.agents = []
            flags = dict.fromkeys(done, True)
            return obs, rewards, flags, dict.fromkeys(done, False), infos
        present = self._deciders()
        obs, rewards = self._emit(present)
        terms = dict.fromkeys(present, False)
        infos = {a: self._infos[a] for a in present}
        # seats that left since the last step: final observation, pending reward, terminated
        left = sorted(a for a in self._leaving if a in self._seen)
        if left:
            o, r, i = self._emit_final(left)
            obs.update(o)
            rewards.update(r)
            terms.update(dict.fromkeys(left, True))
            infos.update(i)
        self._done.update(self._leaving)
        self._leaving = {}
        self.agents = [a for a in self.agents if a not in self._done]
        return obs, rewards, terms, dict.fromkeys(terms, False), infos

    def close(self) -> None:
        self.env.close()


def rllib_env(config: dict | None = None):
    """An RLlib ``MultiAgentEnv``: ``ParallelPettingZooEnv(RLlibParallelEnv(**config))``.

    Pass to ``register_env`` or directly as ``PPOConfig().environment(rllib_env, env_config={...})``.
    """
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    return ParallelPettingZooEnv(RLlibParallelEnv(**dict(config or {})))


def _rl_module_class():
    import torch
    from mjenv.baselines.policy import PolicyNet
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule

    class MaskedPolicyRLModule(TorchRLModule, ValueFunctionAPI):
        """RLlib module around :class:`PolicyNet`; ``model_config``: ``rules`` and ``hidden``.

        Reads ``batch["obs"]["observations"]`` and ``batch["obs"]["action_mask"]`` (float). Rows with no
        legal action (zero padding RLlib may add) get PASS, so the network never sees an all-zero mask.
        """

        def setup(self):
            from mjenv.game.actions import ActionLayout
            from mjenv.observation import ObservationSpec
            from mjenv.rules import get_rules

            cfg = dict(self.model_config or {})
            rules = get_rules(cfg.get("rules", "basic"))
            self.pass_id = ActionLayout.for_rules(rules).pass_  # not the last id where a room adds actions
            self.net = PolicyNet(ObservationSpec(rules).views, rules.num_tile_types,
                                 tuple(cfg.get("hidden", (256, 256))))

        def _inputs(self, batch):
            obs = batch[Columns.OBS]
            mask = obs["action_mask"] > 0.5
            empty = ~mask.any(dim=-1)
            if empty.any():
                mask = mask.clone()
                mask[empty, self.pass_id] = True
            return obs["observations"].float(), mask

        def _forward(self, batch, **kwargs):
            logits, _ = self.net(*self._inputs(batch))
            return {Columns.ACTION_DIST_INPUTS: logits.clamp(min=torch.finfo(logits.dtype).min)}

        def compute_values(self, batch, embeddings=None):
            return self.net(*self._inputs(batch))[1]

    return MaskedPolicyRLModule


def __getattr__(name: str):
    # the RLModule class is built on first use so that importing this module does not import Ray
    if name == "MaskedPolicyRLModule":
        cls = _rl_module_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module 'mjenv.wrappers.rllib' has no attribute {name!r}")


def ppo_config(
    *,
    rules: str = "basic",
    env_config: dict | None = None,
    hidden: tuple[int, ...] = (256, 256),
    train_batch_size: int = 4000,
    minibatch_size: int = 256,
    num_epochs: int = 4,
    lr: float = 3e-4,
    gamma: float = 0.99,
    num_env_runners: int = 0,
    seed: int | None = 0,
):
    """A ``PPOConfig`` for multi-agent PPO with one shared masked policy for all four seats.

    Args:
        rules: rule set (also passed to the env unless ``env_config`` sets it).
        env_config: more :class:`RLlibParallelEnv` arguments (``shaping``, ...); its ``gamma`` is set to
            PPO's ``gamma`` (a different one raises ValueError: the shaping must use the learner's).
        hidden: trunk widths of the policy network.
        train_batch_size: PPO's.
        minibatch_size: PPO's.
        num_epochs: PPO's.
        lr: PPO's.
        gamma: PPO's discount per decision.
        num_env_runners: RLlib env-runner actors (0 = sample in the driver process).
        seed: RLlib's ``debugging(seed=...)``.

    Raises:
        ValueError: rules whose room brings its own engine and observation (the module's :class:`PolicyNet` reads
            the shared ones; :class:`RLlibParallelEnv` plays them, with a module of the caller's own).
    """
    from mjenv import rulesets

    rulesets.room(rules)  # an unknown name: the known ones listed
    rulesets.check_shared(rules, "ppo_config's policy module (PolicyNet; RLlibParallelEnv plays any rules)")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env("mjenv_rllib", rllib_env)
    cfg = {"rules": rules, **dict(env_config or {})}
    if cfg.setdefault("gamma", gamma) != gamma:
        raise ValueError(f"env_config gamma {cfg['gamma']!r} differs from PPO's gamma {gamma!r}; the shaping "
                         "must discount as the learner does (leave it out of env_config)")
    return (
        PPOConfig()
        .environment("mjenv_rllib", env_config=cfg)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(module_class=__getattr__("MaskedPolicyRLModule"),
                                           model_config={"rules": rules, "hidden": list(hidden)})
                }
            )
        )
        .env_runners(num_env_runners=num_env_runners)
        .training(train_batch_size=train_batch_size, minibatch_size=minibatch_size, num_epochs=num_epochs, lr=lr,
                  gamma=gamma)
        .debugging(seed=seed)
    )


def policy_agent_from_module(module, *, seed: int | None = 0, greedy: bool = True):
    """A :class:`~mjenv.baselines.policy.PolicyAgent` with the weights of a trained MaskedPolicyRLModule."""
    from mjenv.baselines.policy import PolicyAgent, PolicyNet

    net = PolicyNet.from_config(module.net.config())
    net.load_state_dict({k: v.detach().cpu() for k, v in module.net.state_dict().items()})
    return PolicyAgent(net, seed=seed, greedy=greedy)


__all__ = [  # noqa: F822  (MaskedPolicyRLModule is built lazily by the module __getattr__)
    "MaskedPolicyRLModule", "RLlibParallelEnv", "policy_agent_from_module", "ppo_config", "rllib_env",
]
