"""Behaviour cloning warm start: imitate the deficiency-greedy (or flat Monte Carlo) agents.

CleanRL style: read top to bottom. Teacher agents play all four seats of many games stepped together
in the vector env (or their recorded game logs are replayed); every decision with more than one legal
action becomes a sample ``(observation, action_mask, action)``; a :class:`PolicyNet` is fitted by
masked cross-entropy. The result is a policy checkpoint that ``PolicyAgent.load`` and
``train_ppo --init`` read. A room with a network of its own (``RuleSet.own_policy``) fits that network on its
own env's observations, episodes of ``--episode`` (its hands or its games); its data are generated (or loaded
with ``--data``), not replayed from logs.

Run: ``python -m mjenv.baselines.train_bc --hands 2000`` or ``mjenv train bc --hands 2000``.
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
from mjenv.baselines.policy import PolicyNet, build_net, load_net, save_policy
from mjenv.baselines.registry import make_agent  # agents by name (train_ppo imports it from here too)
from tqdm.auto import tqdm


@dataclass
class Args:
    """Behaviour cloning of a baseline agent into a PolicyNet."""

    seed: int = 0
    """seed of the deals, the teachers and torch"""
    rules: str = "basic"
    """rule set preset"""
    teacher: str = "greedy"
    """agent whose decisions are cloned: greedy | flatmc | flatmc:sp | flatmc:OPTIONS (flatmc:sims=2000) | random"""
    opponents: str | None = None
    """agent of the other three seats, whose decisions are not cloned (e.g. greedy); default: the teacher in all four"""
    hands: int = 2000
    """episodes generated on the fly: hands (games under a room's --episode of several hands; ignored when --logs
    is given)"""
    episode: str = "hand"
    """what a generated episode is: 'hand'; for a room with a network of its own also its games (its
    TRAIN_EPISODES, e.g. east)"""
    logs: str | None = None
    """a JSON-lines file of hand logs (Game.to_jsonl / parallel_env(log_dir=...)) whose decisions are cloned"""
    data: str | None = None
    """.npz data sets written by --save-data, comma separated (instead of generating or replaying)"""
    save_data: bool = False
    """write the decisions (obs, masks, actions, hand ids) to out_dir/bc_data.npz"""
    num_envs: int = 16
    """games stepped together while generating"""
    epochs: int = 8
    """passes over the data set"""
    batch_size: int = 512
    """samples per gradient step"""
    learning_rate: float = 1e-3
    """Adam learning rate (annealed linearly to 10% over training)"""
    hidden: str = "256,256"
    """widths of the trunk's hidden layers, comma separated"""
    trunk: str = "mlp"
    """trunk of a fresh network: 'mlp' (over the flat observation) or 'cnn' (over its tile planes, mjenv.planes)"""
    init: str | None = None
    """start from this policy checkpoint instead of a fresh network"""
    val_fraction: float = 0.1
    """fraction of the hands held out to measure accuracy"""
    out_dir: str = "runs/bc"
    """folder for policy.pt, bc_log.csv, TensorBoard events and bc_curve.png"""
    tensorboard: bool = True
    """write TensorBoard events"""
    eval_hands: int = 0
    """duplicate DEALS vs three greedy agents after training, each played in the four seat rotations, so 4
    episodes (hands, or a room's games of --episode) per deal (--eval-hands 4 plays 16; 0 = skip)"""
    progress: bool = True
    """show tqdm progress bars"""
    save_logs: bool = True
    """keep the generated hands' game logs in out_dir/teacher_logs/hands.jsonl (replayable with --logs; the shared
    rule sets: a room with a network of its own keeps --save-data's data instead)"""
    torch_threads: int = 1
    """torch intra-op threads"""


def generate(teacher: str, hands: int, *, rules: str, seed: int, num_envs: int, progress: bool = True,
             log_dir: str | None = None, opponents: str | None = None, episode: str | None = None):
    """Decisions of ``teacher`` playing all four seats of ``hands`` episodes (hands, or the games of ``episode``).

    With ``opponents``, the teacher plays one seat per game (seat ``e % 4`` of table e) and the
    ``opponents`` agent the other three; only the teacher's decisions are samples. A seat with one legal action
    plays it.

    Returns:
        (obs float32[M, D], masks int8[M, A], actions int64[M], hand_ids int64[M]): one row per decision
        with more than one legal action; ``hand_ids`` numbers the episodes 0..hands-1 in finishing order.
    """
    import mjenv

    if hands <= 0:
        raise ValueError(f"hands must be positive, got {hands}")
    num_envs = max(1, min(num_envs, hands))
    venv = mjenv.vector_env(num_envs, rules=rules, log_dir=log_dir, **({} if episode is None else {"episode": episode}))
    learner = [[opponents is None or s == e % 4 for s in range(4)] for e in range(num_envs)]
    agents = [[make_agent(teacher if learner[e][s] else opponents, seed=seed * 1000 + 4 * e + s, rules=rules)
               for s in range(4)] for e in range(num_envs)]
    obs, _ = venv.reset(seed=seed)
    pass_id = venv.single_action_space.n - 1
    out_obs, out_mask, out_act, out_hand = [], [], [], []
    pending: list[list[tuple]] = [[] for _ in range(num_envs)]
    done_hands = 0
    bar = tqdm(total=hands, desc=f"BC data ({teacher})", unit="hand", disable=not progress)
    while done_hands < hands:
        masks = obs["action_mask"]
        # the one legal action of a seat that has one (a pass, or under some rules a forced move)
        actions = np.where(masks.any(axis=2), masks.argmax(axis=2), pass_id).astype(np.int64)
        for e, s in zip(*np.nonzero(masks.sum(axis=2) > 1)):
            o = {"observation": obs["observation"][e, s], "action_mask": masks[e, s]}
            actions[e, s] = agents[e][s].act(o)
            if learner[e][s]:
                pending[e].append((o["observation"].copy(), o["action_mask"].copy(), actions[e, s]))
        obs, _, term, trunc, _ = venv.step(actions)
        for e in np.flatnonzero(term | trunc):
            if done_hands < hands:
                for o, m, a in pending[e]:
                    out_obs.append(o)
                    out_mask.append(m)
                    out_act.append(a)
                    out_hand.append(done_hands)
                done_hands += 1
                bar.update(1)
            pending[e] = []
    bar.close()
    venv.close()
    return (
        np.asarray(out_obs, dtype=np.float32),
        np.asarray(out_mask, dtype=np.int8),
        np.asarray(out_act, dtype=np.int64),
        np.asarray(out_hand, dtype=np.int64),
    )


def from_logs(path: str, *, rules: str, progress: bool = True):
    """Decisions recorded in hand logs, replayed through the game engine and encoded as observations.

    ``path`` is a JSON-lines file of hand logs (``Game.to_jsonl``; what ``parallel_env(log_dir=...)``
    and ``--save-logs`` write). Each hand is rebuilt from its header (rules, dealer, wall) and every
    logged step is re-applied; before each step the acting seats with more than one legal action
    become samples (the observation ``ObservationSpec.encode_all`` gives, exactly the env's).
    ``rules`` is only a fallback: each log carries its own.

    Returns:
        the same arrays as :func:`generate`.
    """
    from mjenv.game import Game, log_rules
    from mjenv.game.log import read_jsonl
    from mjenv.observation import ObservationSpec

    if not Path(path).is_file():
        raise ValueError(f"no hand log file at {path!r}")
    logs = read_jsonl(path)
    if not logs:
        raise ValueError(f"no hand logs in {path!r}")
    out_obs, out_mask, out_act, out_hand = [], [], [], []
    specs: dict = {}
    for hand_id, log in enumerate(tqdm(logs, desc="BC data (logs)", unit="hand", disable=not progress)):
        log_rule_set = log_rules(log) if "rules" in log else rules
        game = Game(log_rule_set, log["seed"], dealer=log["dealer"], wall=log.get("wall"))
        key = game.rules.name
        spec = specs.setdefault(key, ObservationSpec(game.rules))
        for step in log["steps"]:
            acts = {int(s): int(a) for s, a in step}
            masks = {s: game.legal_action_mask(s) for s in acts}
            deciding = [s for s in acts if int(masks[s].sum()) > 1]
            if deciding:
                obs_all = spec.encode_all(game)
                for s in deciding:
                    out_obs.append(obs_all[s])
                    out_mask.append(masks[s])
                    out_act.append(acts[s])
                    out_hand.append(hand_id)
            game.step(acts)
    return (
        np.asarray(out_obs, dtype=np.float32),
        np.asarray(out_mask, dtype=np.int8),
        np.asarray(out_act, dtype=np.int64),
        np.asarray(out_hand, dtype=np.int64),
    )


def precompute_aux(net: PolicyNet, obs: np.ndarray, chunk: int = 20000) -> torch.Tensor | None:
    """:meth:`PolicyNet.aux` of a whole data set, once (None when the network does not read it)."""
    if not net.discard_effective:
        return None
    return torch.cat([net.aux(obs[i : i + chunk]) for i in range(0, len(obs), chunk)])


def load_data(paths: list[str]):
    """Concatenate .npz data sets of :func:`main`'s ``--save-data`` (hand ids renumbered, in order).

    Returns:
        the same arrays as :func:`generate`.
    """
    parts, offset = [], 0
    for path in paths:
        if not Path(path).is_file():
            raise ValueError(f"no data set at {path!r}")
        with np.load(path) as z:
            part = [z["obs"], z["masks"], z["actions"], z["hand_ids"] + offset]
        offset = int(part[3].max()) + 1 if len(part[3]) else offset
        parts.append(part)
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))


def accuracy(net: PolicyNet, obs: np.ndarray, masks: np.ndarray, actions: np.ndarray, batch: int = 4096,
             aux: torch.Tensor | None = None) -> float:
    """Fraction of decisions where the network's most likely legal action is the teacher's."""
    if len(obs) == 0:
        return float("nan")
    hits = 0
    with torch.no_grad():
        for i in range(0, len(obs), batch):
            a = None if aux is None else aux[i : i + batch]
            logits, _ = net(torch.as_tensor(obs[i : i + batch]), torch.as_tensor(masks[i : i + batch]), a)
            hits += int((logits.argmax(1).numpy() == actions[i : i + batch]).sum())
    return hits / len(obs)


def plot_curve(csv_path: Path, png_path: Path, x: str, ys: list[str], title: str) -> None:
    """Plot columns of a CSV log against ``x`` into a PNG (one panel per entry; ``"a+b"`` shares a panel)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    fig, axes = plt.subplots(1, len(ys), figsize=(4.2 * len(ys), 3.4), squeeze=False)
    for ax, panel in zip(axes[0], ys):
        drawn = 0
        for y in panel.split("+"):  # "a+b": both columns in one panel
            pts = [(float(r[x]), float(r[y])) for r in rows if r.get(y) not in (None, "", "nan")]
            if pts:
                ax.plot(*zip(*pts), marker="o", markersize=3, label=y)
                drawn += 1
        if "+" in panel and drawn:
            ax.legend(fontsize=8)
        ax.set_xlabel(x)
        ax.set_title(panel.replace("+", " vs "))
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(Args, argv, prog="mjenv train bc")
    check_rules(args.rules, "mjenv train bc", own_policy=True)
    from mjenv import rulesets

    own = rulesets.own_policy(args.rules)  # a room's own network and env (None: the shared ones)
    episodes = ("hand",) if own is None else tuple(own.TRAIN_EPISODES)
    if args.episode not in episodes:
        raise ValueError(f"--episode must be one of {episodes} for rules {args.rules!r}, got {args.episode!r}")
    if own is not None and args.trunk not in own.TRUNKS:
        raise ValueError(f"the network of rules {args.rules!r} has the trunks {tuple(own.TRUNKS)}, got --trunk "
                         f"{args.trunk!r}")
    if own is not None and args.logs:
        raise ValueError(f"--logs replays the shared engine's hand logs; rules {args.rules!r} generate their data "
                         "(--save-data keeps it, --data loads it)")
    if not 0.0 <= args.val_fraction < 1.0:
        raise ValueError(f"val_fraction must be in [0, 1), got {args.val_fraction}")
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, args.torch_threads))

    # --- data: teacher decisions ---------------------------------------------------------------
    t0 = time.time()
    if args.data:
        obs, masks, actions, hand_ids = load_data(args.data.split(","))
    elif args.logs:
        obs, masks, actions, hand_ids = from_logs(args.logs, rules=args.rules, progress=args.progress)
    else:
        log_dir = None
        if args.save_logs and own is None:
            log_dir = str(out_dir / "teacher_logs")
            (out_dir / "teacher_logs" / "hands.jsonl").unlink(missing_ok=True)
        obs, masks, actions, hand_ids = generate(
            args.teacher, args.hands, rules=args.rules, seed=args.seed, num_envs=args.num_envs,
            progress=args.progress, log_dir=log_dir, opponents=args.opponents,
            episode=None if own is None else args.episode,
        )
    if len(obs) == 0:
        raise ValueError("the teacher games produced no decisions to clone")
    gen_s = time.time() - t0
    # what the samples imitate, for the checkpoint and the curve's title
    if args.data:
        with np.load(args.data.split(",")[0]) as z:
            source = str(z["teacher"]) if "teacher" in z.files else "a saved data set"
    elif args.logs:
        source = f"the logs {args.logs}"
    else:
        source = args.teacher + (f" (against {args.opponents})" if args.opponents else "")
    if args.save_data:
        np.savez_compressed(out_dir / "bc_data.npz", obs=obs, masks=masks, actions=actions, hand_ids=hand_ids,
                            teacher=np.array(source))
    n_hands = int(hand_ids.max()) + 1
    val = hand_ids >= n_hands - int(round(args.val_fraction * n_hands))  # split by hand: no leakage within a hand
    tr_idx, va_idx = np.flatnonzero(~val), np.flatnonzero(val)
    unit = "hands" if args.episode == "hand" else "games"
    print(f"{len(obs)} decisions from {n_hands} {unit} in {gen_s:.0f}s ({len(tr_idx)} train / {len(va_idx)} val)",
          flush=True)

    # --- network and optimiser ----------------------------------------------------------------------
    hidden = tuple(int(h) for h in args.hidden.split(","))
    net = load_net(args.init) if args.init else build_net(args.rules, hidden, trunk=args.trunk)
    if net.obs_size != obs.shape[1]:
        raise ValueError(f"network expects {net.obs_size} observation entries, the data has {obs.shape[1]}")
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    steps_per_epoch = max(1, int(np.ceil(len(tr_idx) / args.batch_size)))
    total_steps = args.epochs * steps_per_epoch
    writer = None
    if args.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(out_dir / "tb"))
    csv_path = out_dir / "bc_log.csv"
    fields = ["epoch", "step", "loss", "train_accuracy", "val_accuracy", "learning_rate", "seconds"]
    with open(csv_path, "w", newline="") as f:
        csv.writer(f).writerow(fields)

    obs_t, mask_t, act_t = torch.as_tensor(obs), torch.as_tensor(masks), torch.as_tensor(actions)
    aux_t = precompute_aux(net, obs)  # the head's per-discard effective counts, computed once
    rng = np.random.default_rng(args.seed)
    step = 0
    for epoch in range(1, args.epochs + 1):
        net.train()
        perm = rng.permutation(tr_idx)
        losses = []
        for i in tqdm(range(0, len(perm), args.batch_size), desc=f"epoch {epoch}", leave=False,
                      disable=not args.progress):
            lr = args.learning_rate * (1.0 - 0.9 * step / max(1, total_steps))
            for g in optimizer.param_groups:
                g["lr"] = lr
            b = torch.as_tensor(perm[i : i + args.batch_size])
            logits, _ = net(obs_t[b], mask_t[b], None if aux_t is None else aux_t[b])
            loss = torch.nn.functional.cross_entropy(logits, act_t[b])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
            step += 1
        net.eval()
        sub = tr_idx[: min(len(tr_idx), 20000)]
        row = {
            "epoch": epoch,
            "step": step,
            "loss": float(np.mean(losses)),
            "train_accuracy": accuracy(net, obs[sub], masks[sub], actions[sub],
                                       aux=None if aux_t is None else aux_t[sub]),
            "val_accuracy": accuracy(net, obs[va_idx], masks[va_idx], actions[va_idx],
                                     aux=None if aux_t is None else aux_t[va_idx]),
            "learning_rate": lr,
            "seconds": time.time() - t0,
        }
        with open(csv_path, "a", newline="") as f:
            csv.writer(f).writerow([row[k] for k in fields])
        if writer is not None:
            for k in ("loss", "train_accuracy", "val_accuracy", "learning_rate"):
                writer.add_scalar(f"bc/{k}", row[k], step)
        print(f"epoch {epoch}: loss {row['loss']:.4f} train acc {row['train_accuracy']:.3f} "
              f"val acc {row['val_accuracy']:.3f}", flush=True)

    policy_path = out_dir / "policy.pt"
    save_policy(net, policy_path, trained_by="train_bc", teacher=source, hands=n_hands, rules=args.rules)
    plot_curve(csv_path, out_dir / "bc_curve.png", "epoch", ["loss", "train_accuracy", "val_accuracy"],
               f"behaviour cloning of {source}")
    if writer is not None:
        writer.close()
    print(f"saved {policy_path}")

    if args.eval_hands > 0:
        from mjenv.baselines.evaluate import evaluate_vs_greedy

        result = evaluate_vs_greedy(str(policy_path), hands=args.eval_hands, seed=args.seed + 10_000,
                                    rules=args.rules, out_dir=out_dir / "eval",
                                    episode=None if own is None else args.episode)
        # the table is markdown: printed as such, not escaped inside JSON (the JSON is in out_dir/eval)
        print(f"\nevaluation against three greedy agents ({result['deals']} duplicate deals = {result['hands']} "
              f"{unit}; files in {out_dir / 'eval'}):\n{result['table']}")
    return policy_path


if __name__ == "__main__":
    main()
