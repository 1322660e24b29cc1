"""Train one seat with sb3-contrib's MaskablePPO against three fixed agents, then evaluate it on fresh deals.

Needs ``pip install 'mjenv[train]'``. Run::

    python examples/sb3_maskable_ppo.py                      # 50k decisions, deficiency shaping
    python examples/sb3_maskable_ppo.py --shaping none       # the same run without shaping
    python examples/sb3_maskable_ppo.py --help

The learner sits at a random seat each hand (``SingleAgentEnv(seat=None)``); every ``step`` of that env
is one of its real decisions (a progress bar counts them, with the learner's mean return over its last
100 hands; ``--no-progress`` hides it). The shaping (``--shaping deficiency``: ``Phi = -deficiency`` of its own
hand, times ``--shaping-scale``, 1 by default) is applied by the wrapper between the learner's
consecutive decisions with the SAME ``--gamma`` that MaskablePPO discounts with, so it stays
potential-based in the learner's own decision process (see ``mjenv.wrappers.single_agent``).

The policy network is, by default, mjenv's ``PolicyNet`` (``--policy policynet``, :func:`policy_net_policy`):
the network of ``mjenv train ppo``, with an action-feature head that maps what the deficiency core says
about each action to a logit. sb3's plain ``MlpPolicy`` (``--policy mlp``, optionally on the scaled
observation, ``--observation scaled``) learns far slower here: about 30% against three random agents
after 50k decisions, 35% after 300k, where ``PolicyNet`` reaches about 86% after 50k (research/notes/TRAINING.md,
"The shaping result", the SB3 screening table).

At the end the policy (deterministic: the most likely legal action) plays ``--eval-deals`` fresh
duplicate deals (each in the four seat rotations, seeds that training never uses) against three random
and against three greedy agents, and the win rates with 95% CIs are printed. At the default budget (50k
decisions, a few minutes on one core) it visibly learns: over 3 seeds it won 85.8 ± 2.6% of fresh hands
against three random agents (a random seat wins under 1%) and 21.8 ± 8.3% against three greedy agents
(a greedy seat wins about 27% of the same hands); research/notes/TRAINING.md compares it with the same runs
without shaping.
"""

from __future__ import annotations

import argparse
import json
from collections import deque
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from mjenv.shaping import SHAPINGS

#: Evaluation seeds (wall and agent seeds of the duplicate deals), never used to deal training hands.
EVAL_SEED_RANDOM = 424_242
EVAL_SEED_GREEDY = 434_343


def policy_net_policy():
    """sb3-contrib's ``MaskableActorCriticPolicy`` whose network is mjenv's :class:`PolicyNet` (``--policy policynet``).

    ``PolicyNet`` (``mjenv.baselines.policy``, the network of ``mjenv train ppo``) normalises the raw
    observation itself, shares its trunk between the logits and the value, and adds an action-feature
    head: one small MLP, shared by all actions, that maps what the deficiency core says about each action
    (the change of deficiency after it, the effective-tile count after a discard) to a logit. Here it
    produces all logits and the value (``mlp_extractor``), and sb3's output layers are identities;
    MaskablePPO masks the logits as usual. Built on first use, so ``--help`` does not import sb3.
    """
    from mjenv.baselines.policy import build_net
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    class PolicyNetExtractor(nn.Module):
        def __init__(self, hidden):
            super().__init__()
            self.net = build_net("basic", hidden)
            self.latent_dim_pi = self.net.num_actions  # the logits themselves
            self.latent_dim_vf = 1  # the value itself

        def _out(self, obs):
            everything = torch.ones(obs.shape[0], self.net.num_actions, dtype=torch.bool, device=obs.device)
            return self.net(obs, everything)  # MaskablePPO applies the real mask to these logits

        def forward(self, obs):
            logits, value = self._out(obs)
            return logits, value[:, None]

        def forward_actor(self, obs):
            return self._out(obs)[0]

        def forward_critic(self, obs):
            return self._out(obs)[1][:, None]

    class PolicyNetPolicy(MaskableActorCriticPolicy):
        def __init__(self, *args, **kwargs):
            kwargs["ortho_init"] = False  # PolicyNet initialises itself (small actor and head outputs)
            super().__init__(*args, **kwargs)

        def _build_mlp_extractor(self) -> None:
            self.mlp_extractor = PolicyNetExtractor(self.net_arch or [256, 256])

        def _build(self, lr_schedule) -> None:
            super()._build(lr_schedule)
            self.action_net = nn.Identity()
            self.value_net = nn.Identity()
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    return PolicyNetPolicy


class SB3Agent:
    """A trained MaskablePPO model as an mjenv agent: ``act({"observation", "action_mask"}) -> int``."""

    def __init__(self, model, deterministic: bool = True):
        from mjenv.wrappers import ObservationScaler

        self.model = model
        self.deterministic = deterministic
        self.name = "sb3"
        # a model trained on SingleAgentEnv(scale_observation=True) has a [-1, 1] Box; the harness hands raw ones
        self.scaler = ObservationScaler("basic") if float(model.observation_space.high.max()) <= 1.0 else None

    @classmethod
    def load(cls, path: str, deterministic: bool = True) -> SB3Agent:
        from sb3_contrib import MaskablePPO

        try:
            model = MaskablePPO.load(path, device="cpu")
        except Exception:  # a --policy policynet model: its class is rebuilt here rather than unpickled
            model = MaskablePPO.load(path, device="cpu", custom_objects={"policy_class": policy_net_policy()})
        return cls(model, deterministic)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset (the evaluation harness calls this before each hand)."""

    def act(self, observation: dict) -> int:
        obs = observation["observation"] if self.scaler is None else self.scaler(observation["observation"])
        action, _ = self.model.predict(obs, action_masks=observation["action_mask"].astype(bool),
                                       deterministic=self.deterministic)
        return int(action)


def evaluate_agent(agent, deals: int) -> dict[str, tuple[float, float]]:
    """Win rate (mean, 95% CI half-width) of the agent against three random and three greedy agents."""
    from mjenv.baselines.evaluate import evaluate

    out = {}
    for opp, seed in (("random", EVAL_SEED_RANDOM), ("greedy", EVAL_SEED_GREEDY)):
        report = evaluate([agent, opp, opp, opp], deals, seed, labels=["sb3", opp, opp, opp], progress=False)
        print(f"\nMaskablePPO vs three {opp} agents, {deals} fresh duplicate deals (seed {seed}):")
        print(report.table())
        out[opp] = report.stats["sb3"]["win_rate"]
    return out


#: Default factor of the shaping potential: 1, one point per step of deficiency, the same weight relative to
#: the score as ``mjenv train ppo``'s shaping. With 1/15 the shaping made no measurable difference; with 1
#: the shaped runs were ahead early (research/notes/TRAINING.md, the SB3 shaping comparison).
SHAPING_SCALE = 1.0

#: --shaping values: "none" plus every shaping of mjenv.shaping (the one list)
SHAPING_CHOICES = ["none", *(s for s in SHAPINGS if s is not None)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timesteps", type=int, default=50_000,
                   help="learner decisions to train for (default: %(default)s, a few minutes on one core)")
    p.add_argument("--shaping", default="deficiency", choices=SHAPING_CHOICES,
                   help="potential-based shaping of the wrapper (default: %(default)s)")
    p.add_argument("--gamma", type=float, default=0.99,
                   help="MaskablePPO's discount per decision, also the wrapper's shaping gamma (default: %(default)s)")
    p.add_argument("--opponents", default="random", help="agent spec of the three other seats (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the training deals and torch (default: %(default)s)")
    p.add_argument("--shaping-scale", type=float, default=SHAPING_SCALE,
                   help="factor of the shaping potential, still potential-based (default: %(default)s)")
    p.add_argument("--observation", default="raw", choices=["raw", "scaled"],
                   help="raw: the documented observation; scaled: each view divided by its bound, in [-1, 1] "
                        "(SingleAgentEnv(scale_observation=True)) (default: %(default)s)")
    p.add_argument("--n-steps", type=int, default=2048, help="decisions per PPO rollout (default: %(default)s)")
    p.add_argument("--batch-size", type=int, default=256,
                   help="PPO minibatch, at most --n-steps (default: %(default)s)")
    p.add_argument("--n-epochs", type=int, default=4, help="PPO epochs per rollout (default: %(default)s)")
    p.add_argument("--learning-rate", type=float, default=3e-4, help="Adam step size (default: %(default)s)")
    p.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus (default: %(default)s)")
    p.add_argument("--policy", default="policynet", choices=["mlp", "policynet"],
                   help="mlp: sb3's MlpPolicy; policynet: mjenv's PolicyNet with its action-feature head "
                        "(policy_net_policy) (default: %(default)s)")
    p.add_argument("--net", default="256,256", help="hidden sizes of the policy and value MLPs (default: %(default)s)")
    p.add_argument("--torch-threads", type=int, default=1, help="torch intra-op threads (default: %(default)s)")
    p.add_argument("--out-dir", default="runs/sb3", help="where the model is saved (default: %(default)s)")
    p.add_argument("--save-at", default="",
                   help="comma-separated timesteps at which to keep a model in OUT/models/ (learning curves)")
    p.add_argument("--eval-deals", type=int, default=50,
                   help="duplicate deals of the final evaluation per opponent kind, 0 = none (default: %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar while training")
    args = p.parse_args(argv)
    for name in ("timesteps", "n_steps", "batch_size", "n_epochs", "torch_threads"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive int, got {getattr(args, name)}")
    if args.eval_deals < 0:
        raise ValueError(f"--eval-deals must be 0 or more, got {args.eval_deals}")
    if not args.shaping_scale > 0 or not args.learning_rate > 0 or not args.ent_coef >= 0:
        raise ValueError(f"--shaping-scale and --learning-rate must be > 0 and --ent-coef >= 0, got "
                         f"{args.shaping_scale}, {args.learning_rate}, {args.ent_coef}")
    try:
        args.net = [int(s) for s in args.net.split(",") if s.strip()]
    except ValueError:
        raise ValueError(f"--net must be comma-separated positive ints, got {args.net!r}") from None
    if not args.net or min(args.net) < 1:
        raise ValueError(f"--net must be comma-separated positive ints, got {args.net}")
    if args.policy == "policynet" and args.observation != "raw":
        raise ValueError("--policy policynet reads the raw observation (it normalises it itself and its action-feature "
                         "head reads deficiencies as they are): use --observation raw, or --policy mlp")
    if not 0.0 < args.gamma <= 1.0:
        raise ValueError(f"--gamma must be in (0, 1], got {args.gamma}")
    try:
        args.save_at = sorted(int(s) for s in args.save_at.split(",") if s.strip())
    except ValueError:
        raise ValueError(f"--save-at must be comma-separated ints, got {args.save_at!r}") from None
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(args.torch_threads)
    from mjenv.wrappers import SingleAgentEnv
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    shaping = None if args.shaping == "none" else args.shaping
    # the wrapper's gamma is the learner's: one discount step per decision of the learner
    env = SingleAgentEnv(opponents=args.opponents, seat=None, shaping=shaping, gamma=args.gamma,
                         shaping_scale=args.shaping_scale, scale_observation=args.observation == "scaled")
    policy = "MlpPolicy" if args.policy == "mlp" else policy_net_policy()
    model = MaskablePPO(policy, env, n_steps=args.n_steps, batch_size=min(args.batch_size, args.n_steps),
                        n_epochs=args.n_epochs, learning_rate=args.learning_rate, gamma=args.gamma,
                        ent_coef=args.ent_coef, policy_kwargs={"net_arch": args.net}, seed=args.seed, verbose=0)
    out = Path(args.out_dir)
    (out / "models").mkdir(parents=True, exist_ok=True)

    class Keep(BaseCallback):
        """Saves the model at the --save-at timesteps, with the env steps played so far."""

        def __init__(self, at: list[int]):
            super().__init__()
            self.at = list(at)

        def _on_step(self) -> bool:
            while self.at and self.num_timesteps >= self.at[0]:
                step = self.at.pop(0)
                path = out / "models" / f"step_{step:09d}"
                self.model.save(str(path))
                meta = {"timesteps": step, "env_steps": int(self.training_env.get_attr("env_steps")[0])}
                path.with_suffix(".json").write_text(json.dumps(meta))
            return True

    class Progress(BaseCallback):
        """A tqdm bar of the decisions trained, with the learner's mean hand return over its last 100 hands."""

        def __init__(self, total: int, disable: bool):
            super().__init__()
            self.bar = tqdm(total=total, desc="MaskablePPO", unit="decision", disable=disable)
            self.returns: deque[float] = deque(maxlen=100)
            self.running = 0.0

        def _on_step(self) -> bool:
            self.running += float(self.locals["rewards"][0])
            if self.locals["dones"][0]:
                self.returns.append(self.running)
                self.running = 0.0
                self.bar.set_postfix(hands=len(self.returns), mean_return=f"{np.mean(self.returns):+.2f}",
                                     refresh=False)
            self.bar.update(1)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    model.learn(total_timesteps=args.timesteps,
                callback=[Keep(args.save_at), Progress(args.timesteps, disable=args.no_progress)])
    model.save(str(out / "model"))
    print(f"trained {args.timesteps} decisions ({env.env_steps} env steps), shaping {args.shaping}, "
          f"gamma {args.gamma}; saved {out / 'model.zip'}")
    if args.eval_deals == 0:
        return {}
    result = evaluate_agent(SB3Agent(model), args.eval_deals)
    for opp, (m, ci) in result.items():
        print(f"win rate vs three {opp} agents: {m:.3f} ± {ci:.3f} (95% CI over deals)")
    return {k: (float(m), float(ci)) for k, (m, ci) in result.items()}


if __name__ == "__main__":
    main()
