"""Masked PPO self-play for four-player Mahjong (CleanRL style: one file, read top to bottom).

The learner is a :class:`~mjenv.baselines.policy.PolicyNet` (masked logits: illegal actions get
``-inf``). Many games are stepped together in the vector env (``mjenv.vector_env``), whose
observations are seat-relative. In every game one seat is the learner; each other seat is drawn from
the opponent pool when the game starts:

* ``self``: the current policy (its decisions are trained on too: self-play),
* ``greedy`` / ``random`` / ``flatmc``: the baselines,
* ``past``: a frozen snapshot of the learner from earlier in training (the newest ``pool_size`` kept).

Only decisions with more than one legal action enter the policy loss; every learner step enters
GAE and the value loss (rewards of forced steps, such as the end-of-hand score while passing, still
reach the decisions before them). Rewards are the env's end-of-hand score changes, optionally with
potential-based shaping ``gamma * Phi(s') - Phi(s)`` per env step (``--shaping deficiency`` or
``deficiency_tiles``, potentials of ``mjenv.shaping`` read from each seat's own observation, ``Phi = 0``
at the end of a hand), times ``--reward-scale``. GAE runs over every env step with ``--gamma``, so the
shaping uses that same discount and telescopes in the learner's own process.

Outputs in ``--out-dir``: ``checkpoint.pt`` (resume with ``--resume``), ``policy.pt`` (the latest
policy, ``PolicyAgent.load``), ``snapshots/``, ``ppo_log.csv``, TensorBoard events in ``tb/``,
``ppo_curve.png`` (redrawn at checkpoints at most once a minute, see ``--plot-every``), and
evaluations against three greedy agents through the evaluation harness in ``eval/``.

Run: ``python -m mjenv.baselines.train_ppo --total-timesteps 200000`` or ``mjenv train ppo ...``.
PPO as in Schulman et al. 2017 (clipped surrogate, GAE), with the CleanRL ``ppo.py`` loop layout.
"""

from __future__ import annotations

import csv
import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from mjenv.baselines._args import check_rules, parse_args
from mjenv.baselines._common import act_rows
from mjenv.baselines.evaluate import evaluate_vs_greedy  # noqa: F401  (its home before: kept importable here)
from mjenv.baselines.optim import Adam
from mjenv.baselines.oracle_critic import OracleCritic, privileged_features, privileged_size
from mjenv.baselines.policy import PolicyNet, build_net, load_net, save_policy
from mjenv.baselines.train_bc import make_agent, plot_curve
from tqdm.auto import tqdm

from mjenv.shaping import Potential, check_shaping


@dataclass
class Args:
    """Masked PPO self-play against a pool of baselines and past checkpoints."""

    seed: int = 0
    """seed of the deals, the opponent draws, the agents and torch"""
    rules: str = "basic"
    """rule set preset (a room with a network of its own trains that network: RuleSet.own_policy)"""
    episode: str = "hand"
    """what an episode is: 'hand'; for a room with a network of its own also its games (its TRAIN_EPISODES; the
    log's hands column then counts games)"""
    total_timesteps: int = 200_000
    """env steps to train for, summed over the games stepped together"""
    num_envs: int = 16
    """games stepped together"""
    num_steps: int = 128
    """env steps per game per rollout (rollout = num_envs * num_steps env steps)"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """anneal the learning rate linearly to 0"""
    gamma: float = 0.999
    """discount per env step (a hand lasts about 100 env steps)"""
    gae_lambda: float = 0.95
    """lambda of generalised advantage estimation"""
    num_minibatches: int = 4
    """minibatches per update epoch"""
    update_epochs: int = 4
    """passes over each rollout"""
    norm_adv: bool = True
    """normalise advantages within a minibatch"""
    clip_coef: float = 0.2
    """PPO surrogate clipping"""
    clip_vloss: bool = True
    """clip the value loss as in the PPO paper's implementation"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient norm clipping"""
    value_warmup: int = 0
    """first updates that train only the value head, the trunk frozen (a warm-started policy is kept meanwhile)"""
    target_kl: float | None = None
    """stop the update epochs early above this approximate KL (None = never)"""
    reward_scale: float = 0.1
    """multiplies the env rewards (score changes) before learning"""
    win_reward: float = 0.0
    """when > 0, the env reward is replaced by this much for a hand won (final score > 0) and 0 otherwise, so
    the learner maximises its win rate (what `mjenv eval` ranks by) and a deal-in costs no more than any other
    loss (0 = off: the score changes)"""
    shaping: str | None = None
    """None, 'deficiency' (Phi = -deficiency) or 'deficiency_tiles' (plus the effective-tile count; mjenv.shaping)"""
    opponents: str = "self,greedy,past"
    """opponent pool, comma separated, drawn uniformly per seat per game: self, greedy, random, flatmc, past"""
    pool_size: int = 5
    """past snapshots kept in the pool"""
    snapshot_every: int = 10
    """updates between snapshots added to the pool"""
    hidden: str = "256,256"
    """trunk widths of a fresh network (ignored with --init or --resume)"""
    trunk: str = "mlp"
    """trunk of a fresh network: 'mlp' (over the flat observation) or 'cnn' (over its tile planes, mjenv.planes)"""
    init: str | None = None
    """start from this policy checkpoint (e.g. the behaviour-cloning warm start)"""
    kl_to_init: float = 0.0
    """weight of a penalty KL(pi || pi_init) per real decision, over the legal actions, toward the frozen
    --init policy (keeps a warm-started policy near what it imitated; 0 = off; needs --init)"""
    resume: bool = False
    """continue from out_dir/checkpoint.pt (network, optimiser, counters, pool, logs)"""
    checkpoint_every: int = 5
    """updates between checkpoints"""
    plot_every: float = 60.0
    """wall seconds at least between two redraws of ppo_curve.png at checkpoints (a redraw costs about a third of
    a CPU-second); the last update always draws it; 0 = at every checkpoint"""
    keep_policies: bool = False
    """also keep a copy of the policy at every checkpoint, out_dir/policies/step_<global step>.pt (learning curves)"""
    eval_every: int = 20
    """updates between evaluations against three greedy agents (0 = only at the end)"""
    eval_hands: int = 64
    """duplicate DEALS per evaluation, each played in the four seat rotations, so 4 episodes (hands, or a room's
    games of --episode) per deal (--eval-hands 4 plays 16; 0 = no evaluation)"""
    out_dir: str = "runs/ppo"
    """folder for checkpoints, logs and plots"""
    tensorboard: bool = True
    """write TensorBoard events"""
    progress: bool = True
    """show a tqdm progress bar"""
    num_threads: int = 1
    """torch intra-op threads (also accepted as --torch-threads)"""
    oracle_critic: bool = False
    """advantages from an oracle-guided critic (baselines/oracle_critic.py): a separate value MLP that also reads
    every seat's concealed tiles and the wall's next draws (training only; the saved policy reads its own
    observation alone). Needs the compiled vector env. --value-warmup then trains only this critic"""
    critic_hidden: str = "256,256"
    """hidden widths of the oracle critic"""


LEARNER = -1  # role of a seat played by the current policy


def make_critic(net: PolicyNet, args: Args):
    """The oracle critic of ``--oracle-critic`` for ``net`` (None without it)."""
    if not args.oracle_critic:
        return None
    return OracleCritic(net, privileged_size(net.num_tile_types), tuple(int(h) for h in args.critic_hidden.split(",")))


def trained_parameters(net: PolicyNet, critic) -> list:
    """What the optimiser moves: the policy network, and the oracle critic when there is one."""
    return list(net.parameters()) + ([] if critic is None else list(critic.parameters()))


def sample_actions(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """One action per row drawn from ``softmax(logits)``, and its log-probability.

    The operations of ``torch.distributions.Categorical(logits=logits)``'s ``sample()`` and
    ``log_prob()``, so the same draws from torch's generator, without building the distribution object
    (its bookkeeping costs more than the draw for a rollout step's few rows).

    Args:
        logits: float32[B, A] masked logits (``-inf`` at illegal actions).

    Returns:
        (int64[B] actions, float32[B] their log-probabilities).
    """
    norm = logits - logits.logsumexp(dim=-1, keepdim=True)
    actions = torch.multinomial(torch.softmax(norm, dim=-1), 1, True).T.reshape(-1)
    return actions, norm.gather(-1, actions[:, None]).squeeze(-1)


def log_prob_entropy(logits: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities of ``actions`` under ``softmax(logits)``, and the distributions' entropies.

    The operations of ``torch.distributions.Categorical(logits=logits)``'s ``log_prob(actions)`` and
    ``entropy()`` (so the same values and gradients), without building the distribution object.

    Args:
        logits: float32[B, A] masked logits (``-inf`` at illegal actions).
        actions: int64[B] action ids.

    Returns:
        (float32[B] log-probabilities, float32[B] entropies).
    """
    norm = logits - logits.logsumexp(dim=-1, keepdim=True)
    logp = norm.gather(-1, actions[:, None]).squeeze(-1)
    p_log_p = norm.clamp(min=torch.finfo(norm.dtype).min) * torch.softmax(norm, dim=-1)
    return logp, -p_log_p.sum(-1)


def row_entries(first: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
    """Where some rows' entries lie in a batch's array of the entries of a mask, row by row
    (``features[mask]`` of a bool[B, A] ``mask``).

    Args:
        first: int64[R], each row's first entry there (the entries of the batch's rows before it).
        count: int64[R], each row's entries.

    Returns:
        int64[count.sum()]: the entries of the rows in the order given, each row's in its own order.
    """
    ends = count.cumsum(0)
    total = int(ends[-1]) if len(ends) else 0
    return torch.repeat_interleave(first - (ends - count), count, output_size=total) + torch.arange(total)


def win_rewards(done: np.ndarray, final_scores: np.ndarray, value: float) -> np.ndarray:
    """The reward of ``--win-reward``: ``value`` for each seat that has just won a hand, else 0.

    Args:
        done: bool[N], the hands that ended at this step.
        final_scores: float[N, 4], each seat's score of the finished hand (read only where ``done``), or
            bool[N, 4], whether each seat won its episode (a room's ``episode_wins``).
        value: the reward for a win.

    Returns:
        float64[N, 4]: ``value`` where the hand ended and the seat's score is > 0, else 0.
    """
    return np.where(done[:, None] & (np.asarray(final_scores) > 0), float(value), 0.0)


def episode_wins(final: dict, own=None, game: bool = False) -> np.ndarray:
    """bool[N, 4]: whether each seat won the episode that just ended (read where it did), from the vector env's
    ``infos["final_info"]``: its hand's score > 0 (the shared rule sets), or what the room's ``episode_wins`` says
    (``own``: the module of a room's own network, ``rulesets.own_policy``; ``game``: episodes of several hands)."""
    if own is None:
        return np.asarray(final["scores"]) > 0
    return own.episode_wins(final, game)


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, prog="mjenv train ppo", aliases={"torch_threads": "num_threads"})
    # a room's own network, env and opponents (None: the shared ones)
    own = check_rules(args.rules, "mjenv train ppo", args.episode, args.trunk)
    game = args.episode != "hand"  # episodes of several hands
    if own is not None and args.oracle_critic:
        raise ValueError(f"--oracle-critic reads the shared engine's games; it does not train on rules {args.rules!r}")
    check_shaping(args.shaping)
    if args.win_reward < 0:
        raise ValueError(f"--win-reward must be >= 0 (0 = score changes), got {args.win_reward}")
    pool_names = [p.strip() for p in args.opponents.split(",") if p.strip()]
    allowed = {"self", "greedy", "random", "flatmc", "past"}
    if not pool_names or set(pool_names) - allowed:
        raise ValueError(f"opponents must be a comma-separated subset of {sorted(allowed)}, got {args.opponents!r}")
    batch_size = args.num_envs * args.num_steps
    num_iterations = max(1, args.total_timesteps // batch_size)
    out_dir = Path(args.out_dir)
    (out_dir / "snapshots").mkdir(parents=True, exist_ok=True)
    ckpt_path, policy_path = out_dir / "checkpoint.pt", out_dir / "policy.pt"
    csv_path = out_dir / "ppo_log.csv"

    # --- seeding ------------------------------------------------------------------------------------
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, args.num_threads))
    rng = np.random.default_rng(args.seed)

    # --- network, optimiser, resume -------------------------------------------------------------------
    start_iteration, global_step, hands_done = 1, 0, 0
    pool_paths: list[str] = []
    if args.resume:
        if not ckpt_path.is_file():
            raise ValueError(f"--resume needs {ckpt_path}; none there")
        ckpt = torch.load(ckpt_path, weights_only=False)  # our own file: holds rng states
        net = PolicyNet.from_config(ckpt["net_config"])
        net.load_state_dict(ckpt["net"])
        critic, critic_state = make_critic(net, args), ckpt.get("critic")
        if critic is not None:
            if critic_state is None:
                raise ValueError(f"{ckpt_path} has no oracle critic; resume without --oracle-critic")
            critic.load_state_dict(critic_state)
        optimizer = Adam(trained_parameters(net, critic), lr=args.learning_rate, eps=1e-5)
        optimizer.load_state_dict(ckpt["optimizer"])
        start_iteration, global_step, hands_done = ckpt["iteration"] + 1, ckpt["global_step"], ckpt["hands"]
        pool_paths = list(ckpt["pool"])
        rng.bit_generator.state = ckpt["rng"]
        torch.set_rng_state(ckpt["torch_rng"])
        print(f"resumed at iteration {start_iteration} (global step {global_step})")
    else:
        net = load_net(args.init) if args.init else build_net(args.rules, tuple(int(h) for h in args.hidden.split(",")),
                                                                   trunk=args.trunk)
        critic = make_critic(net, args)
        optimizer = Adam(trained_parameters(net, critic), lr=args.learning_rate, eps=1e-5)
        with open(csv_path, "w", newline="") as f:
            csv.writer(f).writerow(LOG_FIELDS)
    (out_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))
    writer = None
    if args.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(out_dir / "tb"))

    # --- environments and opponents ---------------------------------------------------------------------
    import mjenv

    # unshaped env; the shaping is added below with the learner's discount (Ng et al. 1999), so optimal
    # policies are unchanged
    if own is not None:
        venv = mjenv.vector_env(args.num_envs, rules=args.rules, episode=args.episode)
    else:
        venv = mjenv.vector_env(args.num_envs, rules=args.rules, engine="compiled" if critic is not None else "auto")
    if args.kl_to_init < 0:
        raise ValueError(f"--kl-to-init must be >= 0, got {args.kl_to_init}")
    if args.kl_to_init > 0 and not args.init:
        raise ValueError("--kl-to-init needs --init (the frozen policy the KL is taken toward)")
    # frozen copy of the starting policy for the KL penalty (reloaded from --init on resume too)
    init_net = load_net(args.init).eval() if args.kl_to_init > 0 else None
    spec = None if own is None else venv.spec_obs  # a room's own observation
    phi = None if args.shaping is None else Potential(args.shaping, args.rules, spec=spec)
    n_env, n_act = args.num_envs, venv.single_action_space.n
    obs_size = venv.single_observation_space["observation"].shape[0]
    if obs_size != net.obs_size:
        raise ValueError(f"network expects {net.obs_size} observation entries, the env gives {obs_size}")
    baseline_agents = {
        name: [[make_agent(name, seed=args.seed * 7919 + 4 * e + s, rules=args.rules) for s in range(4)]
               for e in range(n_env)]
        for name in pool_names if name in ("greedy", "random", "flatmc")
    }
    past_nets: dict[str, PolicyNet] = {}

    def past_net(path: str) -> PolicyNet:
        if path not in past_nets:
            past_nets[path] = load_net(path).eval()
        return past_nets[path]

    def draw_roles(e: int) -> list:
        """Roles of the four seats of a new game in env e: one learner seat, the rest from the pool."""
        seats: list = []
        for _ in range(4):
            name = pool_names[rng.integers(len(pool_names))]
            if name == "self" or (name == "past" and not pool_paths):
                seats.append(LEARNER)
            elif name == "past":
                seats.append(pool_paths[rng.integers(len(pool_paths))])
            else:
                seats.append(name)
        seats[int(rng.integers(4))] = LEARNER
        return seats

    roles = [draw_roles(e) for e in range(n_env)]
    # the roles as arrays (kept in step with ``roles``): learner seats, and each baseline seat's agent
    is_learner = np.zeros((n_env, 4), dtype=bool)
    seat_agent = np.empty((n_env, 4), dtype=object)

    def set_roles(e: int) -> None:
        is_learner[e] = [r == LEARNER for r in roles[e]]
        seat_agent[e] = [baseline_agents[r][e][s] if r in baseline_agents else None for s, r in enumerate(roles[e])]

    for e in range(n_env):
        set_roles(e)
    next_obs, _ = venv.reset(seed=args.seed + 1000 * (start_iteration - 1))
    phi_next = None if phi is None else phi(next_obs["observation"])  # Phi of next_obs, kept for the next step

    # --- rollout storage: (step, env, seat) ------------------------------------------------------------------
    shape = (args.num_steps, n_env, 4)
    obs_buf = np.zeros((*shape, obs_size), dtype=np.float32)
    mask_buf = np.zeros((*shape, n_act), dtype=np.int8)
    act_buf = np.zeros(shape, dtype=np.int64)
    logp_buf = np.zeros(shape, dtype=np.float32)
    val_buf = np.zeros(shape, dtype=np.float32)
    rew_buf = np.zeros(shape, dtype=np.float32)
    done_buf = np.zeros(shape[:2], dtype=np.float32)
    learn_buf = np.zeros(shape, dtype=bool)
    priv_buf = None if critic is None else np.zeros((*shape, critic.priv_size), dtype=np.float32)
    episode_return = np.zeros((n_env, 4), dtype=np.float64)
    finished: list[dict] = []  # per finished game: learner returns and wins

    t_start = time.time()
    last_plot = t_start
    bar = tqdm(total=num_iterations, initial=start_iteration - 1, desc="PPO", unit="update", disable=not args.progress)
    for iteration in range(start_iteration, num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - (iteration - 1.0) / num_iterations)

        # --- collect a rollout --------------------------------------------------------------------------------
        net.eval()
        if critic is not None:
            critic.eval()
        for step in range(args.num_steps):
            o, m = next_obs["observation"], next_obs["action_mask"]
            obs_buf[step], mask_buf[step] = o, m
            learn_buf[step] = is_learner
            if critic is not None:
                priv_buf[step] = privileged_features(venv._batch.games)
            actions = np.argmax(m, axis=2)  # forced seats: their only legal action (PASS)
            le, ls = np.nonzero(is_learner)
            with torch.inference_mode():
                logits, values = net(torch.as_tensor(o[le, ls]), torch.as_tensor(m[le, ls]))
                a, logp = sample_actions(logits)
                logp_buf[step, le, ls] = logp.numpy()
                if critic is not None:
                    values = critic(torch.as_tensor(o[le, ls]), torch.as_tensor(priv_buf[step, le, ls]))
                val_buf[step, le, ls] = values.numpy()
            actions[le, ls] = a.numpy()
            # opponents decide only where they have a choice: the baselines in one call for every table,
            # frozen snapshots batched per snapshot (in order of their first seat, row by row)
            oe, os_ = np.nonzero(~is_learner & (m.sum(axis=2) > 1))
            agents = seat_agent[oe, os_]
            base = agents != None  # noqa: E711  (elementwise over an object array)
            if base.any():
                actions[oe[base], os_[base]] = act_rows(agents[base], o[oe[base], os_[base]], m[oe[base], os_[base]])
            by_snapshot: dict[str, list[tuple[int, int]]] = {}
            for e, s in zip(oe[~base], os_[~base]):
                by_snapshot.setdefault(roles[e][s], []).append((e, s))
            for path, seats in by_snapshot.items():
                pe, ps = np.array(seats).T
                with torch.inference_mode():
                    snap_logits, _ = past_net(path)(torch.as_tensor(o[pe, ps]), torch.as_tensor(m[pe, ps]))
                    actions[pe, ps] = sample_actions(snap_logits)[0].numpy()
            act_buf[step] = actions

            next_obs, rewards, terms, truncs, infos = venv.step(actions)
            done = terms | truncs
            if args.win_reward > 0:
                rewards = win_rewards(done, episode_wins(infos["final_info"], own, game), args.win_reward)
            if phi is not None:
                # after a hand ends next_obs is the next deal's: Phi(end of hand) = 0 instead
                phi_now, phi_next = phi_next, phi(next_obs["observation"])
                rewards = rewards + args.gamma * phi_next * (1.0 - done[:, None]) - phi_now
            rew_buf[step] = rewards * args.reward_scale
            done_buf[step] = done
            episode_return += rewards
            global_step += n_env
            if done.any():  # who won the episodes that ended (the learner's win rate)
                final = infos.get("final_info", {})
                wins = episode_wins(final, own, game) if own is not None or "scores" in final else episode_return > 0
            for e in np.flatnonzero(done):
                for s in range(4):
                    if roles[e][s] == LEARNER:
                        finished.append({"return": float(episode_return[e, s]), "win": float(wins[e, s])})
                episode_return[e] = 0.0
                hands_done += 1
                roles[e] = draw_roles(e)
                set_roles(e)

        # --- bootstrap and GAE, per (env, seat) ---------------------------------------------------------------
        with torch.inference_mode():
            o, m = next_obs["observation"], next_obs["action_mask"]
            next_value = np.zeros((n_env, 4), dtype=np.float32)
            if critic is None:
                next_value[:] = net(torch.as_tensor(o.reshape(-1, obs_size)),
                                    torch.as_tensor(m.reshape(-1, n_act)))[1].numpy().reshape(n_env, 4)
            else:
                priv = privileged_features(venv._batch.games).reshape(n_env * 4, -1)
                next_value[:] = critic(torch.as_tensor(o.reshape(-1, obs_size)),
                                       torch.as_tensor(priv)).numpy().reshape(n_env, 4)
        advantages = np.zeros(shape, dtype=np.float32)
        last_gae = np.zeros((n_env, 4), dtype=np.float32)
        for t in reversed(range(args.num_steps)):
            nonterminal = 1.0 - done_buf[t][:, None]
            nv = next_value if t == args.num_steps - 1 else val_buf[t + 1]
            delta = rew_buf[t] + args.gamma * nv * nonterminal - val_buf[t]
            last_gae = delta + args.gamma * args.gae_lambda * nonterminal * last_gae
            advantages[t] = last_gae
        returns = advantages + val_buf

        # --- PPO update on the learner's steps ------------------------------------------------------------------
        idx = np.flatnonzero(learn_buf.reshape(-1))
        b_obs = torch.as_tensor(obs_buf.reshape(-1, obs_size)[idx])
        b_mask = torch.as_tensor(mask_buf.reshape(-1, n_act)[idx])
        b_act = torch.as_tensor(act_buf.reshape(-1)[idx])
        b_logp = torch.as_tensor(logp_buf.reshape(-1)[idx])
        b_adv = torch.as_tensor(advantages.reshape(-1)[idx])
        b_ret = torch.as_tensor(returns.reshape(-1)[idx])
        b_val = torch.as_tensor(val_buf.reshape(-1)[idx])
        b_priv = None if critic is None else torch.as_tensor(priv_buf.reshape(-1, critic.priv_size)[idx])
        b_head = net.head_mask(b_mask)
        b_decide = b_head.any(dim=1).float()  # only real choices carry policy gradient
        b_count = b_head.sum(dim=1)
        b_first = b_count.cumsum(0) - b_count  # each row's first entry in b_feat
        with torch.no_grad():  # a function of the observations alone: once for every epoch, where the head runs
            rows = torch.nonzero(b_decide).squeeze(1)
            b_feat = net.action_features(b_obs.index_select(0, rows))[b_head.index_select(0, rows)]
        net.train()
        if critic is not None:
            critic.train()
        clipfracs, stat_lists = [], {"pg_loss": [], "v_loss": [], "entropy": [], "approx_kl": [], "kl_to_init": []}
        mb_size = max(1, len(idx) // args.num_minibatches)
        for _epoch in range(args.update_epochs):
            perm = torch.as_tensor(rng.permutation(len(idx)))
            for start in range(0, len(idx), mb_size):
                mb = perm[start : start + mb_size]
                mb_obs, mb_mask = b_obs.index_select(0, mb), b_mask.index_select(0, mb)
                mb_feat = b_feat.index_select(0, row_entries(b_first[mb], b_count[mb]))
                logits, newvalue = net(mb_obs, mb_mask, features=mb_feat)
                if critic is not None:
                    newvalue = critic(mb_obs, b_priv[mb])
                newlogp, entropy = log_prob_entropy(logits, b_act[mb])
                logratio = newlogp - b_logp[mb]
                ratio = logratio.exp()
                w = b_decide[mb]
                n_dec = w.sum().clamp(min=1.0)
                with torch.no_grad():
                    approx_kl = (((ratio - 1) - logratio) * w).sum() / n_dec
                    clipfracs.append(float((((ratio - 1.0).abs() > args.clip_coef).float() * w).sum() / n_dec))
                mb_adv = b_adv[mb]
                if args.norm_adv and w.sum() > 1:
                    mean = (mb_adv * w).sum() / n_dec
                    std = (((mb_adv - mean) ** 2 * w).sum() / n_dec).sqrt()
                    mb_adv = (mb_adv - mean) / (std + 1e-8)
                pg_loss = (torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef))
                           * w).sum() / n_dec
                if args.clip_vloss:
                    v_unclipped = (newvalue - b_ret[mb]) ** 2
                    v_clipped = b_val[mb] + (newvalue - b_val[mb]).clamp(-args.clip_coef, args.clip_coef)
                    v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_ret[mb]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_ret[mb]) ** 2).mean()
                entropy = (entropy * w).sum() / n_dec
                if iteration <= args.value_warmup:
                    loss = args.vf_coef * v_loss
                else:
                    loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
                if init_net is not None:
                    with torch.no_grad():
                        init_logits, _ = init_net(mb_obs, mb_mask)
                    legal = mb_mask.bool()
                    # illegal actions have -inf logits in both nets: their log-probabilities are set to 0
                    # before the product, so they add 0 (not nan) to the value and to the gradient
                    logp_new = torch.log_softmax(logits, dim=1).masked_fill(~legal, 0.0)
                    logp_init = torch.log_softmax(init_logits, dim=1).masked_fill(~legal, 0.0)
                    kl_init = ((logp_new.exp() * legal * (logp_new - logp_init)).sum(dim=1) * w).sum() / n_dec
                    stat_lists["kl_to_init"].append(kl_init.item())
                    if iteration > args.value_warmup:
                        loss = loss + args.kl_to_init * kl_init
                optimizer.zero_grad()
                loss.backward()
                if iteration <= args.value_warmup:
                    # only the value head moves (with --oracle-critic: only that critic): the policy stays as it was
                    value_params = set() if critic is not None else {id(p) for p in net.critic.parameters()}
                    for p in net.parameters():
                        if id(p) not in value_params:
                            p.grad = None
                torch.nn.utils.clip_grad_norm_(trained_parameters(net, critic), args.max_grad_norm)
                optimizer.step()
                for k, v in (("pg_loss", pg_loss), ("v_loss", v_loss), ("entropy", entropy), ("approx_kl", approx_kl)):
                    stat_lists[k].append(v.item())
            if args.target_kl is not None and stat_lists["approx_kl"] and stat_lists["approx_kl"][-1] > args.target_kl:
                break
        stats = {k: float(np.mean(v)) for k, v in stat_lists.items() if v}  # means over the update
        y_pred, y_true = b_val.numpy(), b_ret.numpy()
        var_y = np.var(y_true)
        explained_var = float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y)

        # --- bookkeeping: snapshots, checkpoints, evaluation, logs -------------------------------------------
        if iteration % args.snapshot_every == 0 and "past" in pool_names:
            snap = out_dir / "snapshots" / f"update_{iteration:05d}.pt"
            save_policy(net, snap, iteration=iteration)
            pool_paths = (pool_paths + [str(snap)])[-args.pool_size :]
        is_last = iteration == num_iterations
        eval_row: dict = {}
        if args.eval_hands > 0 and (is_last or (args.eval_every > 0 and iteration % args.eval_every == 0)):
            save_policy(net, policy_path, iteration=iteration)
            eval_row = evaluate_vs_greedy(str(policy_path), hands=args.eval_hands, seed=args.seed + 10_000,
                                          rules=args.rules, out_dir=out_dir / "eval" / f"update_{iteration:05d}",
                                          episode=None if own is None else args.episode)
        recent = finished[-200:]
        row = {
            "iteration": iteration,
            "global_step": global_step,
            "hands": hands_done,
            "seconds": time.time() - t_start,
            "learning_rate": optimizer.param_groups[0]["lr"],
            "learner_return": float(np.mean([f["return"] for f in recent])) if recent else float("nan"),
            "learner_win_rate": float(np.mean([f["win"] for f in recent])) if recent else float("nan"),
            "explained_variance": explained_var,
            "clipfrac": float(np.mean(clipfracs)) if clipfracs else float("nan"),
            **{k: stats.get(k, float("nan")) for k in ("pg_loss", "v_loss", "entropy", "approx_kl", "kl_to_init")},
            "eval_policy_win_rate": eval_row.get("policy_win_rate", ""),
            "eval_greedy_win_rate": eval_row.get("greedy_win_rate", ""),
            "eval_policy_mean_score": eval_row.get("policy_mean_score", ""),
        }
        finished = finished[-200:]
        with open(csv_path, "a", newline="") as f:
            csv.writer(f).writerow([row[k] for k in LOG_FIELDS])
        if writer is not None:
            for k, v in row.items():
                if k != "iteration" and v != "":
                    writer.add_scalar(f"ppo/{k}", float(v), global_step)
        if iteration % args.checkpoint_every == 0 or is_last:
            save_policy(net, policy_path, iteration=iteration)
            if args.keep_policies:
                (out_dir / "policies").mkdir(exist_ok=True)
                save_policy(net, out_dir / "policies" / f"step_{global_step:09d}.pt", iteration=iteration)
            torch.save({"net": net.state_dict(), "net_config": net.config(), "optimizer": optimizer.state_dict(),
                        "critic": None if critic is None else critic.state_dict(),
                        "iteration": iteration, "global_step": global_step, "hands": hands_done,
                        "pool": pool_paths, "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
                        "args": asdict(args)}, ckpt_path)
            if is_last or time.time() - last_plot >= args.plot_every:
                plot_curve(csv_path, out_dir / "ppo_curve.png", "global_step",
                           ["learner_return", "learner_win_rate", "eval_policy_win_rate+eval_greedy_win_rate",
                            "entropy"], "masked PPO")
                last_plot = time.time()
        bar.set_postfix(win=f"{row['learner_win_rate']:.3f}", ret=f"{row['learner_return']:.2f}", hands=hands_done)
        bar.update(1)
    bar.close()
    venv.close()
    if writer is not None:
        writer.close()
    print(f"saved {policy_path}")
    return policy_path


LOG_FIELDS = [
    "iteration", "global_step", "hands", "seconds", "learning_rate", "learner_return", "learner_win_rate",
    "explained_variance", "clipfrac", "pg_loss", "v_loss", "entropy", "approx_kl", "kl_to_init",
    "eval_policy_win_rate", "eval_greedy_win_rate", "eval_policy_mean_score",
]


if __name__ == "__main__":
    main()
