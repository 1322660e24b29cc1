"""A tiny mjai bot for the tests: it discards what it draws and never calls, or misbehaves on purpose.

Usage: ``python bot.py BEHAVIOUR [FILE]``. Behaviours: ``ok`` (answers the messages with ``can_act: true``),
``every`` (answers every message, ``none`` when it has nothing to do), ``crash`` (exits with code 3 at its
first decision), ``garbage`` (answers that decision with text that is not JSON), ``illegal`` (discards a
tile it does not hold), ``slow`` (never answers), ``chatty`` (answers messages nobody asked about),
``huge`` (an answer of 200,000 characters and no newline), ``deaf`` (never reads), ``spawn`` (starts a
child process, writes its id to FILE, then never answers), ``orphan`` (starts a child process, writes its
id to FILE and plays as ``ok``, leaving the child behind when it exits). With ``ok``/``every``, FILE
receives every line the bot read.
"""

import json
import subprocess
import sys
import time

behaviour = sys.argv[1]
path = sys.argv[2] if len(sys.argv) > 2 else None
log = open(path, "w") if path and behaviour in ("ok", "every") else None
seat = None
hand: list[str] = []
if behaviour == "deaf":
    time.sleep(60)
if behaviour == "orphan":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with open(path, "w") as f:
        f.write(str(child.pid))


def say(obj) -> None:
    print(json.dumps(obj), flush=True)


for line in sys.stdin:
    if log:
        log.write(line)
        log.flush()
    m = json.loads(line)
    t = m["type"]
    if t == "start_game":
        seat = m["id"]
    elif t == "start_kyoku":
        hand = list(m["tehais"][seat])
    elif t == "tsumo" and m["actor"] == seat:
        hand.append(m["pai"])
    elif t == "dahai" and m["actor"] == seat:
        hand.remove(m["pai"])
    asked = m.get("can_act", True) if behaviour != "every" else True
    if not asked:
        if behaviour == "chatty":
            say({"type": "none"})
        continue
    own_draw = t == "tsumo" and m["actor"] == seat
    if behaviour == "every" and not own_draw:
        say({"type": "none"})
        continue
    if behaviour == "crash":
        print("boom: the bot fell over", file=sys.stderr, flush=True)
        sys.exit(3)
    if behaviour == "garbage":
        print("hello, I am not JSON", flush=True)
        continue
    if behaviour == "slow":
        time.sleep(60)
    if behaviour == "huge":
        sys.stdout.write("x" * 200_000)
        sys.stdout.flush()
        time.sleep(60)
    if behaviour == "spawn":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        with open(path, "w") as f:
            f.write(str(child.pid))
        time.sleep(60)
    if own_draw:
        if behaviour == "illegal":
            pai = next(x for x in ("C", "F", "P", "N", "9m", "1m", "9s", "1s") if x not in hand)
            say({"type": "dahai", "actor": seat, "pai": pai, "tsumogiri": False})
        else:
            say({"type": "dahai", "actor": seat, "pai": m["pai"], "tsumogiri": True})
    else:
        say({"type": "none"})
