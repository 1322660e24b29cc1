"""Run an mjai bot (Mortal and the like) as a subprocess in one seat of a Riichi game.

:class:`MjaiAgent` starts the bot's command, writes the seat's view of the game to its stdin as mjai
JSON lines (:func:`~mjenv.rulesets.riichi.mjai.seat_view`: the other seats' starting hands and draws
are ``?``) and reads its answer from stdout, one JSON line, which it turns into one of mjenv's action
ids (:mod:`~mjenv.rulesets.riichi.actions`).

Two reply conventions (``reply=``):

- ``"decisions"`` (Mortal's ``mortal.py``, the default): the bot answers only the message that asks it
  to decide. Each message carries ``"can_act": true`` on that message and ``false`` on the others
  (Mortal's bot honours ``can_act: false``; other bots ignore the key).
- ``"every"`` (the original mjai server): the bot answers every message, ``{"type": "none"}`` when it
  has nothing to do.

Answers: ``dahai`` (discard), ``reach``, ``hora`` (tsumo or ron), ``ankan``/``kakan``, ``chi``/``pon``/
``daiminkan`` (on the discard just made), ``ryukyoku`` (nine terminals) and ``none`` (pass).

A bot that exits, answers garbage (not one JSON object per line, an unknown type, another seat, a line
over ``max_reply_chars``), makes a move mjenv finds illegal, or does not answer within ``timeout``
seconds raises :class:`MjaiBotError` naming the bot, what went wrong and the message (the default
``on_error="raise"``). With ``on_error="illegal"`` the agent returns an action id that is not legal for
the seat instead, so an env's illegal-action policy applies (the seat takes the penalty), and keeps the
error in :attr:`MjaiAgent.errors`. A bot that crashed, timed out or sent garbage is stopped and every
later decision fails the same way; an illegal move leaves the bot running. Nothing blocks for longer
than ``timeout``: writes and reads both wait with a deadline. The bot runs in its own process group,
which :meth:`MjaiAgent.close` (also ``with`` and a finaliser when the agent is collected) kills.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import tempfile
import time
import weakref
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi import mjai
from mjenv.rulesets.riichi.game import RiichiGame

__all__ = ["MjaiAgent", "MjaiBotError", "SeatView", "play"]

REPLIES = ("decisions", "every")
ON_ERROR = ("raise", "illegal")


class MjaiBotError(ValueError):
    """An mjai bot failed: ``kind`` is ``"crashed"``, ``"garbage"``, ``"illegal"``, ``"timeout"`` or
    ``"closed"`` (used after an earlier failure); ``bot`` names it and ``reply`` is what it sent, if anything."""

    def __init__(self, bot: str, kind: str, detail: str, reply: str | None = None) -> None:
        self.bot, self.kind, self.detail, self.reply = bot, kind, detail, reply
        shown = "" if reply is None else f"; it sent {reply[:200]!r}"
        name = bot if len(bot) <= 80 else bot[:77] + "..."
        super().__init__(f"mjai bot {name!r} {kind}: {detail}{shown}")


# ---------------------------------------------------------------------------------------------- the view
class SeatView:
    """One seat's view of a live game as mjai messages, produced incrementally.

    Only what the seat may see is read: the engine's public events, the seat's own draws and its own
    concealed hand (for its starting hand, rebuilt as the hand now plus its discards and call tiles minus
    its draws). A hand that ended before the view was updated in it (the seat had nothing to decide and
    nobody called :meth:`update`, e.g. a nine-terminals draw before its first turn) is left out: its
    starting hand is gone, and the next ``start_kyoku`` carries the scores. :func:`play` updates every
    view at each hand's end, so nothing is left out there.
    """

    def __init__(self, seat: int, names: Sequence[str] | None = None) -> None:
        if seat not in range(4):
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        self.seat = seat
        self.names = [f"seat{s}" for s in range(4)] if names is None else list(names)
        self.game: RiichiGame | None = None
        self.done = 0
        self.skipped = 0  # hands left out (see the class docstring)

    def update(self, game: RiichiGame) -> list[dict]:
        """The seat's mjai messages for the events since the last call (a new game starts with ``start_game``)."""
        out: list[dict] = []
        if game is not self.game or len(game.events) < self.done:
            self.game, self.done = game, 0
            out.append({"type": "start_game", "names": list(self.names), "id": self.seat})
        events = game.events
        last_start = max((i for i, e in enumerate(events) if e["type"] == "start_hand"), default=-1)
        skipping = False
        for i in range(self.done, len(events)):
            e = events[i]
            tehais = None
            if e["type"] == "start_hand":
                skipping = i != last_start  # a hand that is over and was never seen: left out
                self.skipped += skipping
            if skipping:
                continue
            if e["type"] == "start_hand":
                own = self._starting_hand(game, i)
                tehais = [own if s == self.seat else [mjai.UNKNOWN] * 13 for s in range(4)]
            m = mjai.event_message(e, tehais)
            if m["type"] == "tsumo" and m["actor"] != self.seat:
                m["pai"] = mjai.UNKNOWN
            out.append(m)
        self.done = len(events)
        return mjai.close_hands(out)

    def _starting_hand(self, game: RiichiGame, start: int) -> list[str]:
        hand = list(game.hands[self.seat])
        draws = []
        for e in game.events[start:]:
            if e.get("seat") != self.seat:
                continue
            if e["type"] == "draw":
                draws.append(e["tile"])
            elif e["type"] == "discard":
                hand.append(e["tile"])
            elif e["type"] == "call":
                used = list(e["tiles"])
                if e["kind"] == "kakan":
                    used = [e["called"]]
                elif e["kind"] != "ankan":
                    used.remove(e["called"])
                hand.extend(used)
        for t in draws:
            hand.remove(t)
        if len(hand) != 13:
            raise ValueError(f"seat {self.seat}'s starting hand does not add up ({len(hand)} tiles)")
        return [mjai.tile_name(t) for t in sorted(hand)]


# ---------------------------------------------------------------------------------------------- the reply
def reply_to_action(reply: Mapping, game: RiichiGame, seat: int) -> int:
    """mjenv's action id for a bot's mjai answer at ``seat``'s decision.

    Raises:
        ValueError: an answer that names another seat, no tile the seat holds, or a move that is not legal.
    """
    t = reply.get("type")
    mask = game.legal_actions(seat)
    if t != "none" and reply.get("actor", seat) != seat:
        raise ValueError(f"the answer acts for seat {reply.get('actor')!r}, the bot plays seat {seat}")
    hand = game.hands[seat]
    if t == "none":
        action = A.PASS
    elif t == "dahai":
        tt, red = mjai.tile_type(reply.get("pai"))
        held = [x for x in hand if x >> 2 == tt and A.is_red(x) == red]
        if not held:
            raise ValueError(f"dahai {reply.get('pai')}: the seat holds no such tile")
        action = A.discard_action(held[0])
    elif t == "reach":
        action = A.RIICHI
    elif t == "hora":
        action = A.TSUMO if game.phase == "act" else A.RON
    elif t == "ryukyoku":
        action = A.KYUUSHU
    elif t in ("ankan", "kakan"):
        tt, _ = mjai.tile_type(reply.get("pai") if t == "kakan" else (reply.get("consumed") or [None])[0])
        action = A.kan_action(tt)
    elif t in ("chi", "pon", "daiminkan"):
        consumed = reply.get("consumed")
        if not isinstance(consumed, list) or len(consumed) != (3 if t == "daiminkan" else 2):
            raise ValueError(f"{t} needs 'consumed', the tiles from the hand")
        types = [mjai.tile_type(x) for x in consumed]
        red = any(r for _, r in types)
        if game.phase != "claim" or game.claim_tile is None:
            raise ValueError(f"{t}: there is no discard to call")
        if t == "pon":
            action = A.PON_RED if red else A.PON
        elif t == "daiminkan":
            action = A.MINKAN
        else:
            called = game.claim_tile >> 2
            order = sorted([called] + [tt for tt, _ in types])
            action = (A.CHI_RED if red else A.CHI) + order.index(called)
    else:
        raise ValueError(f"unknown answer type {t!r}")
    if not mask[action]:
        legal = [A.describe(a) for a in np.flatnonzero(mask)]
        raise ValueError(f"{A.describe(action)} is not legal now (phase {game.phase!r}); legal: {legal}")
    return int(action)


# ---------------------------------------------------------------------------------------------- the agent
def _kill(proc: subprocess.Popen, stderr) -> None:
    """Stop the bot's process group (the bot and whatever it started) and close its pipes (also the finaliser)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the group the bot leads (start_new_session)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process that survives SIGKILL
        pass
    for f in (proc.stdin, proc.stdout, stderr):
        try:
            if f is not None:
                f.close()
        except OSError:
            pass


class MjaiAgent:
    """An mjai bot in one seat (see the module docstring for the protocol and the failures).

    Args:
        command: the bot's command line (a string split like a shell would, or a list of arguments).
        timeout: seconds the bot may take to read a message or answer a decision.
        name: the bot's name in errors and in ``start_game`` (default: the command).
        reply: ``"decisions"`` or ``"every"`` (module docstring).
        on_error: ``"raise"`` (:class:`MjaiBotError`) or ``"illegal"`` (return an illegal action id).
        max_reply_chars: the longest answer line accepted.

    Use it as a context manager, or call :meth:`close`; :meth:`act` gives the seat's action at a decision.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        timeout: float = 10.0,
        name: str | None = None,
        reply: str = "decisions",
        on_error: str = "raise",
        max_reply_chars: int = 65_536,
    ) -> None:
        if reply not in REPLIES:
            raise ValueError(f"reply must be one of {REPLIES}, got {reply!r}")
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, got {on_error!r}")
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        argv = shlex.split(command) if isinstance(command, str) else [str(x) for x in command]
        if not argv:
            raise ValueError("command is empty")
        self.name = name or " ".join(argv)
        self.timeout, self.reply, self.on_error = float(timeout), reply, on_error
        self.max_reply_chars = int(max_reply_chars)
        self.errors: list[MjaiBotError] = []
        self.views: dict[int, SeatView] = {}
        self._failed: MjaiBotError | None = None
        self._buffer = b""
        self._stderr = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, start_new_session=True
            )
        except OSError as e:
            self._stderr.close()
            raise MjaiBotError(self.name, "crashed", f"could not start: {e}") from None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self._finalizer = weakref.finalize(self, _kill, self.proc, self._stderr)

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Stop the bot (closing its stdin first, then killing its process group); safe to call twice."""
        if self._finalizer.alive:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=0.2)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._finalizer()

    def __enter__(self) -> MjaiAgent:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        """Whether the bot's process is running."""
        return self._finalizer.alive and self.proc.poll() is None

    # ------------------------------------------------------------------ pipes
    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 300))
            tail = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return f"; stderr: {tail!r}" if tail else ""

    def _crashed(self, what: str) -> MjaiBotError:
        try:
            code = self.proc.wait(timeout=1.0)  # it closed its pipe: give it a moment to exit
        except subprocess.TimeoutExpired:
            code = None
        how = f"exited with code {code}" if code is not None else "closed its pipe"
        return MjaiBotError(self.name, "crashed", f"{how} {what}{self._stderr_tail()}")

    def _send(self, message: Mapping) -> None:
        data = memoryview((json.dumps(message, separators=(",", ":")) + "\n").encode())
        deadline = time.monotonic() + self.timeout
        fd = self.proc.stdin.fileno()
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise MjaiBotError(self.name, "timeout", f"did not read its input within {self.timeout} s")
            _, writable, _ = select.select([], [fd], [], left)
            if not writable:
                continue
            try:
                n = os.write(fd, data)
            except (BrokenPipeError, ConnectionResetError):
                raise self._crashed(f"before reading {message.get('type')!r}") from None
            except BlockingIOError:
                continue
            data = data[n:]

    def _pending(self) -> bool:
        if b"\n" in self._buffer:
            return True
        ready, _, _ = select.select([self.proc.stdout.fileno()], [], [], 0)
        return bool(ready)

    def _read(self, asked: str) -> dict:
        deadline = time.monotonic() + self.timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            if len(self._buffer) > self.max_reply_chars:
                raise MjaiBotError(self.name, "garbage", f"an answer longer than {self.max_reply_chars} characters")
            left = deadline - time.monotonic()
            if left <= 0:
                raise MjaiBotError(self.name, "timeout", f"no answer to {asked} within {self.timeout} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65_536)
            if not chunk:
                raise self._crashed(f"instead of answering {asked}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        text = line.decode("utf-8", "replace").strip()
        if len(text) > self.max_reply_chars:
            raise MjaiBotError(self.name, "garbage", f"an answer longer than {self.max_reply_chars} characters")
        try:
            msg = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise MjaiBotError(self.name, "garbage", f"not JSON in answer to {asked}", text) from None
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            raise MjaiBotError(self.name, "garbage", f"not an mjai message in answer to {asked}", text)
        return msg

    # ------------------------------------------------------------------ playing
    def observe(self, game: RiichiGame, seat: int) -> None:
        """Send the bot what happened since its last message, without asking it anything."""
        self._exchange(game, seat, decide=False)

    def act(self, game: RiichiGame, seat: int) -> int:
        """The bot's action id at ``seat``'s decision (``seat`` must be in ``game.to_act()``).

        Raises:
            MjaiBotError: the bot failed (``on_error="raise"``); otherwise an illegal id is returned.
            ValueError: ``seat`` has no decision to make.
        """
        if seat not in game.to_act():
            raise ValueError(f"seat {seat} has no decision now (phase {game.phase!r}, acting {game.to_act()})")
        return self._exchange(game, seat, decide=True)

    def _exchange(self, game: RiichiGame, seat: int, decide: bool) -> int:
        view = self.views.setdefault(seat, SeatView(seat, [self.name if s == seat else f"seat{s}" for s in range(4)]))
        messages = view.update(game)
        try:
            if self._failed is not None:
                raise MjaiBotError(self.name, "closed", f"stopped after an earlier failure ({self._failed.kind})")
            return self._talk(game, seat, messages, decide)
        except MjaiBotError as err:
            if err.kind in ("crashed", "garbage", "timeout"):
                self._failed = err
                self.close()
            if self.on_error == "raise":
                raise
            self.errors.append(err)
            return _illegal_action(game.legal_actions(seat)) if decide else A.PASS

    def _talk(self, game: RiichiGame, seat: int, messages: list[dict], decide: bool) -> int:
        if self.reply == "decisions" and self._pending():
            extra = self._read("nothing (it was not asked)")  # a bot that exited raises "crashed" here
            raise MjaiBotError(self.name, "garbage", "answered without being asked", _dump(extra))
        answer: dict | None = None
        for i, m in enumerate(messages):
            asks = decide and i == len(messages) - 1
            if self.reply == "decisions":
                self._send({**m, "can_act": asks})
                if asks:
                    answer = self._read(f"{m['type']} (a decision)")
            else:
                self._send(m)
                got = self._read(repr(m["type"]))
                if asks:
                    answer = got
                elif got.get("type") != "none":
                    raise MjaiBotError(self.name, "garbage", f"acted on {m['type']!r}, which asks nothing", _dump(got))
        if not decide:
            return A.PASS
        if answer is None:
            raise ValueError(f"seat {seat}'s decision came with no new message; was act() called twice?")
        try:
            return reply_to_action(answer, game, seat)
        except ValueError as e:
            raise MjaiBotError(self.name, "illegal", str(e), _dump(answer)) from None


def _dump(m: Mapping) -> str:
    return json.dumps(m, separators=(",", ":"))


def _illegal_action(mask: np.ndarray) -> int:
    """An action id that is not legal under ``mask`` (an env's illegal-action policy then applies)."""
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


def play(game: RiichiGame, agents: Mapping[int, MjaiAgent | Callable[[RiichiGame, int], int]]) -> RiichiGame:
    """Play ``game`` to its end: each seat's action from ``agents[seat]`` (an :class:`MjaiAgent` or a
    function ``f(game, seat) -> action id``); every :class:`MjaiAgent` hears every event, also in hands
    where it has nothing to decide.

    Raises:
        ValueError: a seat without an agent, or an illegal action (an :class:`MjaiBotError` for a bot).
    """
    missing = [s for s in range(4) if s not in agents]
    if missing:
        raise ValueError(f"every seat needs an agent; missing {missing}")
    bots = {s: a for s, a in agents.items() if isinstance(a, MjaiAgent)}
    while game.phase != "game_over":
        if game.phase == "hand_over":
            for s, bot in bots.items():
                bot.observe(game, s)
            game.next_hand()
            continue
        acting = game.to_act()
        actions = {}
        for s in acting:
            a = agents[s]
            actions[s] = a.act(game, s) if isinstance(a, MjaiAgent) else int(a(game, s))
        game.step(actions)
    for s, bot in bots.items():
        bot.observe(game, s)
    return game
