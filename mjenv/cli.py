"""The ``mjenv`` command line: ``tournament``, ``eval``, ``play`` (and whatever other modules add).

- ``mjenv tournament``: the README's main job; a short duplicate-deal tournament of the baselines
  (random, greedy, flat Monte Carlo SP and FP at a small budget) that prints a table.
- ``mjenv eval AGENT AGENT [AGENT AGENT]``: duplicate-deal evaluation with 95% CIs, table printed and
  written as markdown, JSON and a PNG chart; ``--workers N`` processes or ``--ray``.
  ``mjenv eval --league AGENT AGENT AGENT ...``: every pair on the same deals, openskill ratings with
  95% CIs (:mod:`mjenv.baselines.league`).
- ``mjenv play``: you play one seat against three baselines at the terminal.
- ``mjenv view LOG.jsonl --out hand.html``: a self-contained HTML page replaying a logged hand
  (:mod:`mjenv.view`).

Adding subcommands (e.g. the training scripts): call :func:`register_command` with a name, a help
line and a builder ``build(parser) -> handler`` that adds the arguments and returns
``handler(args) -> int``; or list the module in ``_PLUGIN_MODULES`` whose import registers them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

import numpy as np

from mjenv.rulesets import render_parts, rooms
from mjenv.tiles import tile_name

Handler = Callable[[argparse.Namespace], int]
Builder = Callable[[argparse.ArgumentParser], Handler]

_COMMANDS: dict[str, tuple[str, Builder]] = {}
#: Modules imported (if present) before parsing; each may call ``register_command``. A module that
#: fails to import for lack of an optional extra (torch) registers, instead, a stand-in for the
#: command it would have added (name, help), which says what to install.
_PLUGIN_MODULES: dict[str, tuple[str, str]] = {
    "mjenv.baselines.cli_train": ("train", "train a policy: 'mjenv train ppo ...' or 'mjenv train bc ...'"),
}

#: The tournament line-up: every baseline once, flat Monte Carlo at a budget that keeps it short.
TOURNAMENT_AGENTS = ("random", "greedy", "flatmc:sp,sims=1000", "flatmc:sims=1000")


def register_command(name: str, help: str, build: Builder, *, replace: bool = False) -> None:
    """Add a subcommand ``mjenv NAME``.

    Args:
        name: subcommand name.
        help: one line for ``mjenv --help``.
        build: adds arguments to the subparser and returns ``handler(args) -> exit code``.
        replace: allow overriding an existing name.

    Raises:
        ValueError: the name is taken (and ``replace`` is False).
    """
    if name in _COMMANDS and not replace:
        raise ValueError(f"mjenv subcommand {name!r} already exists")
    _COMMANDS[name] = (help, build)


def _add_rules_option(p: argparse.ArgumentParser) -> None:
    from mjenv.rules import PRESET_NAMES

    presets = "; ".join(f"{r.name} ({r.summary})" for r in rooms())  # the registry's rooms, one line each
    p.add_argument("--rules", default="basic", choices=PRESET_NAMES,
                   help=f"rules preset: {presets}; see help(mjenv.rules) and help(mjenv.rulesets.<name>)")


def _add_eval_options(p: argparse.ArgumentParser, deals: int, workers: int) -> None:
    p.add_argument("--deals", "--games", dest="deals", type=int, default=deals,
                   help=f"duplicate deals (walls) to play; each is played in every seat rotation, so 4 agents "
                        f"play 4 hands per deal, or 4 games of --episode under rules whose room plays whole "
                        f"games (default {deals})")  # fmt: skip
    p.add_argument("--episode", default=None,
                   help="rules whose room plays whole games: each deal is one game of this length, one of the "
                        "room's episodes (the first by default; e.g. hanchan, east or hand); average rank and "
                        "points per game are reported")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed of the walls and agents (default 0)")
    _add_rules_option(p)
    p.add_argument("--workers", type=int, default=workers, help=f"worker processes (default {workers})")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads per worker for policy:PATH agents (default 1, so that ms/decision is not "
                        "inflated by threads competing for the cores)")  # fmt: skip
    p.add_argument("--ray", action="store_true", help="run the deals as Ray tasks (pip install 'mjenv[ray]')")
    p.add_argument("--ray-address", default=None, help="Ray cluster address (default: start a local Ray)")
    p.add_argument("--out", default=None, help="folder for results .md/.json/.png (default: nothing written)")
    p.add_argument("--name", default="results", help="base name of the written files (default results)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _run_eval(args: argparse.Namespace, agents: list[str]) -> int:
    from mjenv.baselines.evaluate import evaluate

    try:
        report = evaluate(
            agents,
            args.deals,
            args.seed,
            rules=args.rules,
            workers=args.workers,
            threads=args.threads,
            use_ray=args.ray,
            ray_address=args.ray_address,
            progress=not args.no_progress,
            out_dir=args.out,
            name=args.name,
            episode=args.episode,
        )
    except ValueError as exc:
        print(f"mjenv: error: {exc}", file=sys.stderr)
        return 2
    print(report.table())
    print(f"\n({report.config['wall_s']} s)")
    if args.out:
        print(f"written: {args.out}/{args.name}.md, .json, .png")
    return 0


def _build_tournament(p: argparse.ArgumentParser) -> Handler:
    p.description = (
        "A short duplicate-deal tournament of the baselines "
        f"({', '.join(TOURNAMENT_AGENTS)}); each wall is played with all four seat rotations. A room that plays "
        "whole games may name its own line-up and episode."
    )
    _add_eval_options(p, deals=30, workers=2)

    def run(args: argparse.Namespace) -> int:
        from mjenv.baselines.evaluate import room_games

        games = room_games(args.rules)
        agents = getattr(games, "TOURNAMENT_AGENTS", TOURNAMENT_AGENTS)
        if args.episode is None:
            args.episode = getattr(games, "TOURNAMENT_EPISODE", None)
        return _run_eval(args, list(agents))

    return run


def _build_eval(p: argparse.ArgumentParser) -> Handler:
    from mjenv.baselines.registry import agent_names

    names = "; ".join(f"{k}: {v}" for k, v in agent_names().items())
    p.description = (
        "Evaluate agents on duplicate deals. Give 4 agents (one per seat) or 2 (teams on opposite seats). "
        f"Agents: {names}."
    )
    p.add_argument("agents", nargs="*", help="2 or 4 agent specs, e.g. flatmc greedy")
    p.add_argument("--merge", nargs="+", default=None, metavar="JSON",
                   help="instead of playing, merge the results .json of earlier runs (different seeds)")  # fmt: skip
    p.add_argument("--league", nargs="+", default=None, metavar="AGENT",
                   help="3 or more agents: every pair plays the same duplicate deals; each agent gets an openskill "
                        "rating with a 95%% CI (a markdown table, and with --out a .json and .png)")  # fmt: skip
    _add_eval_options(p, deals=50, workers=1)

    def run(args: argparse.Namespace) -> int:
        if args.league:
            return _run_league(args)
        if args.merge:
            from mjenv.baselines.evaluate import merge_reports

            try:
                report = merge_reports(args.merge)
            except (ValueError, OSError, KeyError) as exc:
                print(f"mjenv: error: cannot merge {args.merge}: {exc}", file=sys.stderr)
                return 2
            if args.out:
                report.save(args.out, args.name)
            print(report.table())
            return 0
        if len(args.agents) not in (2, 4):
            print(f"mjenv: error: give 2 or 4 agents, got {len(args.agents)}: {args.agents}", file=sys.stderr)
            return 2
        return _run_eval(args, list(args.agents))

    return run


def _run_league(args: argparse.Namespace) -> int:
    from mjenv.baselines.league import league

    if args.agents:
        print(f"mjenv: error: give the league's agents after --league only, got also {args.agents}", file=sys.stderr)
        return 2
    try:
        report = league(args.league, args.deals, args.seed, rules=args.rules, workers=args.workers,
                        threads=args.threads, progress=not args.no_progress, out_dir=args.out,
                        name="league" if args.name == "results" else args.name, episode=args.episode)
    except ValueError as exc:
        print(f"mjenv: error: {exc}", file=sys.stderr)
        return 2
    print(report.table())
    if args.out:
        name = "league" if args.name == "results" else args.name
        print(f"written: {args.out}/{name}.md, .json, .png")
    return 0


def _build_play(p: argparse.ArgumentParser) -> Handler:
    p.description = "Play one seat against three baseline agents at the terminal."
    p.add_argument("--opponents", nargs="+", default=["greedy"], help="1 or 3 agent specs (default greedy)")
    p.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat 0..3 (seat 0 deals)")
    p.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    p.add_argument("--seed", type=int, default=None, help="wall seed (default: random)")
    _add_rules_option(p)

    def run(args: argparse.Namespace) -> int:
        return play(args)

    return run


_MELD_VERBS = {
    "chow": "chows",
    "pong": "pongs",
    "exposed_kong": "declares an exposed kong",
    "concealed_kong": "declares a concealed kong",
    "added_kong": "adds a fourth tile to its pong: kong",
}


def _public_state(game) -> list[tuple[int, int, int]]:
    """Per seat: (discards made, tiles in declared melds, each room's count of its public facts, e.g.
    tiles set aside): what changes when a seat acts in public."""
    parts = render_parts()
    return [
        (int(game.num_discards[s]), sum(len(m.tiles) for m in game.melds[s]),
         tuple(p.public_count(game, s) for p in parts))
        for s in range(4)
    ]  # fmt: skip


def narrate(before: list[tuple[int, int]], game, names: list[str], you: int) -> list[str]:
    """What the other seats did in the step that led from ``before`` (:func:`_public_state`) to ``game``.

    Only public moves are told (discards, declared melds, a room's public facts such as tiles set
    aside), as a player at the table sees them.
    """
    from mjenv.render import hand_text
    from mjenv.tiles import to_counts

    parts = render_parts()
    lines = []
    for s, (discards, meld_tiles, counts) in enumerate(before):
        if s == you:
            continue
        for part, count in zip(parts, counts):
            if part.public_count(game, s) > count:
                lines += part.narrate(game, s, names[s])
        if sum(len(m.tiles) for m in game.melds[s]) > meld_tiles:
            m = game.melds[s][-1]
            tiles = hand_text(to_counts(m.tiles, game.rules.num_tile_types))
            lines.append(f"  {names[s]} {_MELD_VERBS.get(m.kind, m.kind)} {tiles}")
        if int(game.num_discards[s]) > discards:
            t = int(game.discards[s][int(game.num_discards[s]) - 1])
            lines.append(f"  {names[s]} discards {tile_name(t)}")
    return lines


def your_draw(game, you: int) -> str | None:
    """``"  you draw 5s"`` when seat ``you`` has just drawn a tile and must discard (None otherwise)."""
    if not game.is_over and int(game.phase) == 0 and int(game.current_player) == you and int(game.last_drawn) >= 0:
        return f"  you draw {tile_name(int(game.last_drawn))}"
    return None


def winning_hand(game, seat: int) -> str:
    """The winner's tiles: concealed (with the winning tile) and declared melds, e.g. ``123s 55m + 777p``."""
    from mjenv.render import hand_text

    hand = np.array(game.hands[seat], dtype=np.int64)
    if game.deal_in >= 0 and game.winning_tile >= 0:  # won on a discard: the tile is not in the hand yet
        hand[int(game.winning_tile)] += 1
    melds = [hand_text(np.bincount(m.tiles, minlength=len(hand))) for m in game.melds[seat]]
    return hand_text(hand) + "".join(f" + {m}" for m in melds)


def play(args: argparse.Namespace, input=None, output=None) -> int:
    """Run ``mjenv play``: a HumanAgent at ``args.seat`` against ``args.opponents``.

    After every step the other seats' public moves are told; at the end, the result, the winning hand
    and every seat's tiles.
    """
    from mjenv import rulesets

    own = rulesets.own_engine(args.rules)
    if own is not None:  # a rule set with an engine of its own plays its own table
        return own.play(args, input=input, output=output)
    from mjenv.baselines.human import HumanAgent
    from mjenv.baselines.registry import make_agent
    from mjenv.game import Game
    from mjenv.observation import ObservationSpec
    from mjenv.render import ClaimMarks, hand_text
    from mjenv.rules import get_rules

    out = output if output is not None else sys.stdout
    opp = list(args.opponents)
    if len(opp) == 1:
        opp = opp * 3
    if len(opp) != 3:
        print(f"mjenv: error: give 1 or 3 opponents, got {len(opp)}", file=sys.stderr)
        return 2
    try:
        bots = [make_agent(spec, seed=i, rules=args.rules) for i, spec in enumerate(opp)]
    except ValueError as exc:
        print(f"mjenv: error: {exc}", file=sys.stderr)
        return 2
    rules = get_rules(args.rules)
    spec = ObservationSpec(rules=rules)
    human = HumanAgent(rules=rules, input=input, output=output)
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    where = ("you", "right", "across", "left")
    names = [
        "you" if s == args.seat else f"{where[(s - args.seat) % 4]} ({opp[s - (s > args.seat)]})" for s in range(4)
    ]
    print(f"you play seat {args.seat}; type 'help' at a prompt for how to answer", file=out)
    total = 0
    for h in range(args.hands):
        seated = list(bots)
        seated.insert(args.seat, human)
        g = Game(rules=rules, seed=seed + h)
        print(f"\n=== hand {h + 1} (seed {seed + h}); dealer: {names[g.dealer]} ===", file=out)
        claims = ClaimMarks()
        human.claimed = set()
        drew = your_draw(g, args.seat)
        try:
            while not g.is_over:
                if drew:
                    print(drew, file=out)
                actions = {}
                for s in g.acting_seats():
                    obs = {"observation": spec.encode(g, s), "action_mask": g.legal_action_mask(s)}
                    actions[s] = int(seated[s].act(obs))
                before = _public_state(g)
                claims.before(g)
                g.step(actions)
                claimed = claims.after(g)
                if claimed is not None:  # the human's table brackets it, seat-relative
                    human.claimed.add(((claimed[0] - args.seat) % 4, claimed[1]))
                for line in narrate(before, g, names, args.seat):
                    print(line, file=out)
                drew = your_draw(g, args.seat)
        except EOFError:
            print("\ninput ended; bye", file=out)
            return 0
        print(f"\n=== hand {h + 1} (seed {seed + h}) over ===", file=out)
        own = next((lines for p in render_parts() if (lines := p.end_lines(g, names, args.seat)) is not None), None)
        if own is not None:  # a room's own account of the wins (e.g. several in one hand)
            for line in own:
                print(line, file=out)
        elif g.winners:
            giver = "your" if g.deal_in == args.seat else f"{names[g.deal_in]}'s"
            how = "self-draw" if g.deal_in < 0 else f"on {giver} tile"
            for w in g.winners:
                print(f"winner: {names[w]} ({how}, {tile_name(int(g.winning_tile))}): {winning_hand(g, w)}", file=out)
        else:
            # a rule set with draw_at stops with that many tiles still in the wall
            left = f"is down to {rules.draw_at} tiles" if rules.draw_at else "ran out"
            print(f"draw: the wall {left}", file=out)
        for s in range(4):
            melds = "".join(f" + {hand_text(np.bincount(m.tiles, minlength=rules.num_tile_types))}" for m in g.melds[s])
            score = int(g.scores[s])
            print(f"  seat {s} {names[s]:>24}: {hand_text(g.hands[s])}{melds}  score {score:+d}", file=out)
        total += int(g.scores[args.seat])
    print(f"your total score: {total:+d}", file=out)
    return 0


def _build_view(p: argparse.ArgumentParser) -> Handler:
    p.description = (
        "Write a self-contained HTML page (no network; open it from disk) that replays a logged hand step by "
        "step: the four hands, discards, melds, claims, what the rule set adds and scores. Arrow keys or the buttons "
        "step through it; #step=k in the address opens step k."
    )
    p.add_argument("log", help="a JSON-lines log an env wrote into its log_dir (hands.jsonl, or a "
                   "room's own log of whole games), or Game.to_jsonl's")
    p.add_argument("--out", required=True, help="the HTML file to write, e.g. hand.html")
    p.add_argument("--hand", type=int, default=0, help="which hand of the file, 0-based (default 0); in a log of "
                   "whole games the hands count on from game to game")

    def run(args: argparse.Namespace) -> int:
        from mjenv.view import write_page

        try:
            frames = write_page(args.log, args.out, hand=args.hand)
        except (ValueError, OSError, KeyError) as exc:
            print(f"mjenv: error: cannot view {args.log}: {exc}", file=sys.stderr)
            return 2
        print(f"written: {args.out} ({frames} steps; open it in a browser)")
        return 0

    return run


register_command("tournament", "a short duplicate-deal tournament of the baselines (prints a table)", _build_tournament)
register_command("eval", "evaluate agents on duplicate deals with 95%% CIs (table, JSON, PNG)", _build_eval)
register_command("play", "play one seat against three baseline agents at the terminal", _build_play)
register_command("view", "write an HTML page that replays a logged hand step by step", _build_view)


def _missing_extra_command(hint: str) -> Builder:
    """A stand-in subcommand that takes any arguments and says what to install."""

    def build(p: argparse.ArgumentParser) -> Handler:
        p.add_argument("options", nargs=argparse.REMAINDER, help="the command's options (once installed)")
        p.description = f"Not available: {hint}."

        def run(args: argparse.Namespace) -> int:
            print(f"mjenv: error: mjenv {args.command} {hint}", file=sys.stderr)
            return 1

        return run

    return build


def _load_plugins() -> None:
    from mjenv._extras import install_hint

    for mod, (command, help_line) in _PLUGIN_MODULES.items():
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name == mod:  # the module is absent (a trimmed install): nothing to offer
                continue
            hint = install_hint(exc)
            if hint is None:
                raise
            # the command stays listed, and says what to install, instead of vanishing from --help
            if command not in _COMMANDS:
                register_command(command, f"{help_line} ({hint})", _missing_extra_command(hint))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mjenv`` script; returns the exit code."""
    _load_plugins()
    parser = argparse.ArgumentParser(prog="mjenv", description="mjenv: four-player Mahjong for RL")
    sub = parser.add_subparsers(dest="command", required=True)
    handlers: dict[str, Handler] = {}
    for name, (help_line, build) in _COMMANDS.items():
        handlers[name] = build(sub.add_parser(name, help=help_line))
    args = parser.parse_args(argv)
    try:
        return int(handlers[args.command](args) or 0)
    except ModuleNotFoundError as exc:
        from mjenv._extras import install_hint

        hint = install_hint(exc)
        if hint is None:
            raise
        # a missing optional dependency is an install step, not a bug: one line, no traceback
        print(f"mjenv: error: mjenv {args.command} {hint}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    # `python -m mjenv.cli` runs this file as __main__; plugins register with the module mjenv.cli, so
    # its main() is the one that sees them
    from mjenv.cli import main as _main

    raise SystemExit(_main())
