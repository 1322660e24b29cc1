"""mkdocs hook: one environment page per registered rule set, generated from the env's own spec.

Every page is built at docs-build time from the definitions the env itself uses (the rule set's
:class:`~mjenv.rules.Rules`, its :class:`~mjenv.game.actions.ActionLayout` and its
:class:`~mjenv.observation.ObservationSpec`), as the README's tables are; nothing on it is written by
hand, so a page cannot drift from the code, and a new rule set gets its page (and its place in the
navigation, under "Environments") as soon as it is registered. ``tests/test_docs_site.py`` checks the
pages against the spec.

Run by ``mkdocs build`` (``hooks:`` in ``mkdocs.yml``); :func:`pages` is the generator itself.
"""

from __future__ import annotations

import re

#: where the generated pages go in the site, and the nav section that lists them
FOLDER = "envs"
SECTION = "Environments"


def rule_set_names() -> list[str]:
    """The registered rule sets, in registry order (``mjenv.rulesets``, one line per room)."""
    from mjenv import rulesets

    return list(rulesets.names())


def _room(name: str):
    from mjenv import rulesets

    return rulesets.room(name)


def _own_engine(name: str):
    """The module of a room that brings its own engine (its env docstring, ``observation_spec()`` and
    ``action_table()`` are its spec), or None for a room on the shared engine."""
    import importlib

    module = _room(name).own_engine
    return importlib.import_module(module) if module else None


def _num_actions(table: str) -> int:
    """One more than the last action id of an action table (``| a |`` or ``| a..b |`` rows)."""
    ids = re.findall(r"^\| (\d+)(?:\.\.(\d+))? \|", table, re.MULTILINE)
    return max(int(b or a) for a, b in ids) + 1


def _spec(name: str):
    """``(rules, observation spec, action table, number of actions)`` of a rule set, from its room."""
    from mjenv.game.actions import ActionLayout
    from mjenv.observation import ObservationSpec

    rules = _room(name).preset
    own = _own_engine(name)
    if own is not None:
        table = own.action_table()
        return rules, own.observation_spec(), table, _num_actions(table)
    return rules, ObservationSpec(rules), action_table(rules), ActionLayout.for_rules(rules).size


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _facts(name: str) -> dict[str, str]:
    """The rule set's headline numbers, as the README's preset table gives them."""
    r, spec, _, actions = _spec(name)
    return {
        "tiles": str(r.num_tiles),
        "hand": str(r.hand_size),
        "melds + pair": f"{r.melds} + 1",
        "chow": _yes(r.allow_chow),
        "T": str(r.num_tile_types),
        "actions": str(actions),
        "N (observation)": str(spec.size),
    }


def action_table(rules) -> str:
    """The action ids of a rule set: the env's own table, plus the declaration ids where it has them."""
    from mjenv.env import _action_table
    from mjenv.game.actions import ActionLayout

    layout = ActionLayout.for_rules(rules)
    rows = [_action_table(layout)]
    declares = range(layout.declares.start, layout.declares.stop)
    for i in range(layout.pass_ + 1, layout.size):  # ids after PASS: the rule set's own actions
        when = "the first step of the hand, every seat at once" if i in declares else "see `help(mjenv.rules)`"
        rows.append(f"| {i} | {layout.describe(i)} | {when} |")
    if not rules.allow_chow:
        rows.append(f"\nThe chow ids ({layout.chow_low}..{layout.chow_high}) exist but are never legal: no chow here.")
    return "\n".join(rows)


def _rules_table(rules) -> str:
    import dataclasses

    rows = ["| field | value |", "|---|---|"]
    for f in dataclasses.fields(rules):
        rows.append(f"| `{f.name}` | `{getattr(rules, f.name)!r}` |")
    return "\n".join(rows)


def _rewards(rules) -> str:
    """What the rewards are, read from the scoring fields of the rule set."""
    if rules.scoring == "points":
        score = (f"a win on a discard (or a robbed kong) takes **{rules.discard_win_points}** points from the "
                 f"discarder; a self-drawn win takes **{rules.self_draw_points}** from each opponent; an "
                 "exhaustive draw scores 0")
    else:
        score = (f"scored by `mjenv.game` under `scoring={rules.scoring!r}` (see `help(mjenv.rules)` and the "
                 "scoring module it names)")
    if rules.bloody:
        when = ("Each step rewards that step's score changes (wins and kongs are paid as they happen): " + score
                + ". A seat that wins leaves the hand (terminated) and the others play on.")
    else:
        when = f"Every step rewards 0 but the last, where each agent receives its score change (zero-sum): {score}."
    return (when + " An illegal action ends the hand with -1 for its agent (`illegal_action=\"raise\"` raises a "
            "`ValueError` instead). `shaping=\"deficiency\"` adds `gamma * Phi(s') - Phi(s)` with "
            "`Phi = -min(deficiency, 15)` of the agent's own hand (potential-based: optimal policies unchanged).")


def _episodes(rules) -> str:
    wall = f"the wall is down to {rules.draw_at} tiles" if rules.draw_at else "the wall is empty"
    end = (f"when three seats have won or {wall}" if rules.bloody
           else f"at the first win, or as an exhaustive draw when {wall}")
    text = [f"One hand per episode, four agents `player_0`..`player_3` (seat 0 deals first). The hand ends {end}."]
    if rules.missing_suit:
        text.append("The first step is the missing-suit declaration: every seat declares at once.")
    if rules.flowers:
        text.append(f"{rules.flowers} flowers are set aside face up when dealt or drawn and replaced from the "
                    "wall's end; they are public.")
    if rules.seven_pairs:
        text.append("Seven pairs is a winning form too, and the deficiency views count it.")
    if rules.multiple_winners:
        text.append("Several seats may win on one discard.")
    text.append("Truncation never happens: every hand ends by the rules.")
    return " ".join(text)


def env_page(name: str) -> str:
    """The markdown page of one rule set."""
    from mjenv.observation import ObservationSpec

    r, spec, table, _ = _spec(name)
    facts = _facts(name)
    summary = _room(name).summary
    own = _own_engine(name)
    head = f"| at a glance | `{name}` |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in facts.items())
    if own is not None:  # the room's env module documents itself, its tables filled from its own spec
        first, rest = own.__doc__.split("\n", 1)
        return f"""# `{name}`

<!-- generated by docs/hooks/env_pages.py from the room's own env, {own.__name__}; do not edit -->

{summary}. Played by the room's own engine, through `mjenv.parallel_env(rules="{name}")`,
`mjenv.env(rules="{name}")` and `mjenv.vector_env(n, rules="{name}")` as every rule set.

{head}

{first.strip()}

{rest.strip()}
"""
    return f"""# `{name}`

<!-- generated by docs/hooks/env_pages.py from the env's spec; do not edit -->

{summary}.

```python
import mjenv
env = mjenv.parallel_env(rules="{name}")          # the Parallel API
aec = mjenv.env(rules="{name}")                   # the AEC API
vec = mjenv.vector_env(16, rules="{name}")        # 16 tables stepped together
```

{head}

## Actions

`Discrete({facts["actions"]})`. A seat with nothing to decide has exactly one legal action, `pass`; a
mask is never all zero.

{table}

## Observation

`{{"observation": float32[{spec.size}], "action_mask": int8[{facts["actions"]}]}}` for every live agent after
every step, every view seat-relative (row 0 = the observing seat, then right, across, left).
`mjenv.observation.decode(obs, rules="{name}")` returns the views by name.

{spec.markdown_table()}

`observation="oracle"` appends the hidden views `oracle_hands` and `oracle_wall`
(N = {ObservationSpec(r, oracle=True).size}) for oracle-guided training; they are off by default.

## Rewards

{_rewards(r)}

## Episodes

{_episodes(r)}

## Rules

`mjenv.rules.get_rules("{name}")`; any field can be changed, e.g.
`parallel_env(rules={{"name": "{name}", "seven_pairs": True}})`.

{_rules_table(r)}
"""


def index_page(names: list[str]) -> str:
    """The overview page: one row per rule set."""
    rows = []
    for name in names:
        facts = _facts(name)
        rows.append(f"| [`{name}`]({name}.md) | " + " | ".join(facts.values()) + " |")
    cols = list(_facts(names[0]))
    return f"""# Environments

<!-- generated by docs/hooks/env_pages.py from the env's spec; do not edit -->

One page per rule set (`rules=...` of `mjenv.parallel_env`, `mjenv.env`, `mjenv.vector_env`, and
`--rules` on the command line). Every table on these pages is generated from the env's own spec.

| rule set | {" | ".join(cols)} |
|---|{"---|" * len(cols)}
{chr(10).join(rows)}
"""


def pages() -> dict[str, str]:
    """Every generated page: ``{path in the site: markdown}``."""
    names = rule_set_names()
    out = {f"{FOLDER}/index.md": index_page(names)}
    out.update({f"{FOLDER}/{n}.md": env_page(n) for n in names})
    return out


# --- mkdocs events ---------------------------------------------------------------------------------

def on_config(config):
    """Fill the nav's "Environments" section with the generated pages."""
    nav = config.get("nav") or []
    for i, entry in enumerate(nav):
        if isinstance(entry, dict) and SECTION in entry:
            nav[i] = {SECTION: [{"Overview": f"{FOLDER}/index.md"}, *(f"{FOLDER}/{n}.md" for n in rule_set_names())]}
    return config


def on_files(files, config):
    """Add the generated pages to the site."""
    from mkdocs.structure.files import File

    for path, text in pages().items():
        files.append(File.generated(config, path, content=text))
    return files
