"""How much of a hand's outcome a critic can predict: from the seat's observation, and with the oracle
critic's privileged features (``baselines/oracle_critic.py``) added.

PPO's advantages are only as clean as its value estimate. This measures the ceiling the oracle critic
of ``train_ppo --oracle-critic`` could reach on its inputs: hands are played on the compiled vector env
by one policy (argmax, the shipped BC policy by default) in all four seats, so the outcome is a
deterministic function of the deal. At every env step one seat per table is sampled; its observation,
its privileged row and whether it finally won the hand are kept. Small MLPs are fitted by least squares
on the states of 75% of the hands and scored on the other 25% (held-out hands, not held-out states,
so states of one hand never sit on both sides):

* **observation**: what the actor and the plain value head see;
* **privileged**: the oracle critic's extra input alone (every hand, each seat's next draws, the
  completion race on the real wall);
* **observation + privileged**: what the oracle critic sees;
* **race**: only the completion race (one-hot of the seat's own first completing draw, of the best
  other seat's, and which is first).

It prints R^2 of the won flag on the held-out hands (1 = perfectly predicted, 0 = the mean), the
win rate by the seat's own completion index, and the game's pace (env steps and real decisions per
seat per hand).

Run: ``python -m research.outcome_predictability --tables 32 --steps 6000``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch


def collect(tables: int, steps: int, seed: int, policy: str):
    """Plays ``steps`` vector-env steps; returns observations, privileged rows, won flags and pace."""
    from mjenv.baselines.oracle_critic import privileged_features
    from mjenv.baselines.policy import load_pretrained

    import mjenv

    net = load_pretrained(policy).net
    rng = np.random.default_rng(seed)
    venv = mjenv.vector_env(tables, engine="compiled")
    obs, _ = venv.reset(seed=seed)
    hand = np.arange(tables)
    next_hand = tables
    decisions = np.zeros((tables, 4), dtype=np.int64)
    outcome: dict[int, np.ndarray] = {}
    per_hand_decisions: list[float] = []
    xs, ps, hs, ss = [], [], [], []
    rows = np.arange(tables)
    for _ in range(steps):
        o, m = obs["observation"], obs["action_mask"]
        seat = rng.integers(4, size=tables)
        priv = privileged_features(venv._batch.games)
        xs.append(o[rows, seat])
        ps.append(priv[rows, seat])
        hs.append(hand.copy())
        ss.append(seat)
        decisions += m.sum(axis=2) > 1
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(o.reshape(-1, o.shape[-1])), torch.as_tensor(m.reshape(-1, m.shape[-1])))
        obs, _, done, _, infos = venv.step(logits.argmax(dim=1).numpy().reshape(tables, 4))
        for e in np.flatnonzero(done):
            outcome[int(hand[e])] = np.asarray(infos["final_info"]["scores"][e]) > 0
            per_hand_decisions.append(decisions[e].mean())
            decisions[e] = 0
            hand[e] = next_hand
            next_hand += 1
    x, p, h, s = (np.concatenate(a) for a in (xs, ps, hs, ss))
    keep = np.array([int(k) in outcome for k in h])
    won = np.array([outcome[int(k)][j] for k, j in zip(h[keep], s[keep])], dtype=np.float32)
    pace = {"hands": len(outcome), "env_steps_per_hand": tables * steps / max(1, len(outcome)),
            "decisions_per_seat_per_hand": float(np.mean(per_hand_decisions))}
    return net, x[keep], p[keep], h[keep], won, pace


def held_out_r2(features: np.ndarray, won: np.ndarray, test: np.ndarray, epochs: int, seed: int) -> float:
    """R^2 on the test rows of a 128-unit MLP fitted by least squares on the other rows."""
    torch.manual_seed(seed)
    x = torch.as_tensor(features, dtype=torch.float32)
    y = torch.as_tensor(won)
    model = torch.nn.Sequential(torch.nn.Linear(x.shape[1], 128), torch.nn.Tanh(), torch.nn.Linear(128, 1))
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    train = torch.as_tensor(np.flatnonzero(~test))
    for _ in range(epochs):
        perm = train[torch.randperm(len(train))]
        for i in range(0, len(perm), 256):
            b = perm[i : i + 256]
            loss = ((model(x[b]).squeeze(1) - y[b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    t = torch.as_tensor(np.flatnonzero(test))
    with torch.no_grad():
        pred = model(x[t]).squeeze(1)
    return float(1.0 - ((pred - y[t]) ** 2).mean() / y[t].var())


def race_features(priv: np.ndarray, num_tile_types: int) -> tuple[np.ndarray, np.ndarray]:
    """(the race summary features, the seat's own completion index) out of privileged rows."""
    from mjenv.baselines.oracle_critic import LOOKAHEAD, completion_index

    bins = LOOKAHEAD + 2
    first = completion_index(priv, num_tile_types)
    mine, others = first[:, 0], first[:, 1:].min(axis=1)
    feats = np.concatenate([np.eye(bins)[mine], np.eye(bins)[others], (mine < others)[:, None],
                            (mine == others)[:, None]], axis=1)
    return feats.astype(np.float32), mine


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=32, help="tables stepped together")
    ap.add_argument("--steps", type=int, default=6000, help="vector-env steps")
    ap.add_argument("--epochs", type=int, default=3, help="passes of each fit (more overfits the hands)")
    ap.add_argument("--seed", type=int, default=123, help="deals, sampled seats, the split and the fits")
    ap.add_argument("--policy", default="bc", help="shipped policy name playing all four seats")
    ap.add_argument("--out", default=None, help="also write the markdown here")
    args = ap.parse_args(argv)
    if args.tables < 1 or args.steps < 1 or args.epochs < 1:
        raise ValueError("--tables, --steps and --epochs must be >= 1")
    torch.set_num_threads(1)
    t0 = time.time()
    net, x, priv, hands, won, pace = collect(args.tables, args.steps, args.seed, args.policy)
    t_count = net.num_tile_types
    with torch.no_grad():
        x = net.normalise(torch.as_tensor(x)).numpy()
    rng = np.random.default_rng(args.seed)
    ids = np.unique(hands)
    test_hands = rng.choice(ids, len(ids) // 4, replace=False)
    test = np.isin(hands, test_hands)
    race, mine = race_features(priv, t_count)
    rows = [
        ("observation (actor, plain value head)", x),
        ("privileged only", priv),
        ("observation + privileged (oracle critic)", np.concatenate([x, priv], axis=1)),
        ("completion race only", race),
    ]
    lines = [
        f"{pace['hands']} hands of `policy:{args.policy}` (argmax) in all four seats, {len(won)} sampled seat-states, "
        f"{args.tables} tables x {args.steps} steps, seed {args.seed}; held-out: {len(test_hands)} hands "
        f"({int(test.sum())} states).",
        "",
        f"Pace: {pace['env_steps_per_hand']:.1f} env steps per hand, "
        f"{pace['decisions_per_seat_per_hand']:.1f} real decisions (more than one legal action) per seat per hand; "
        f"mean win rate {won.mean():.3f}.",
        "",
        "| critic input | features | R^2 of the won flag on held-out hands |",
        "|---|---|---|",
    ]
    for name, feats in rows:
        lines.append(f"| {name} | {feats.shape[1]} | {held_out_r2(feats, won, test, args.epochs, args.seed):.3f} |")
    lines += ["", "| seat's own first completing draw on the real wall | states | win rate |", "|---|---|---|"]
    from mjenv.baselines.oracle_critic import LOOKAHEAD

    for k in range(LOOKAHEAD + 2):
        sel = mine == k
        if sel.sum() >= 50:
            label = str(k) if k <= LOOKAHEAD else f"not within {LOOKAHEAD}"
            lines.append(f"| {label} | {int(sel.sum())} | {won[sel].mean():.3f} |")
    lines += ["", f"({time.time() - t0:.0f} s)"]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return text


if __name__ == "__main__":
    main()
