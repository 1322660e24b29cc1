"""taiwan16: the SIMCAT paper's game (Sec. 2.1): 144 tiles with 8 flowers, 16-tile hands, 5 melds and a
pair, drawn with 16 tiles left. Its optional tai scoring (``scoring="tai"``) is
:mod:`mjenv.rulesets.taiwan16.tai`, hooked into the shared engine by :mod:`mjenv.rulesets.taiwan16.game`."""

from __future__ import annotations

from mjenv.rules import NUM_FLOWERS, Rules
from mjenv.rulesets.protocol import RuleSet
from mjenv.tiles import NUM_TILES


def uses(rules: Rules) -> bool:
    """Whether ``rules`` turns on a field of this room's hooks (tai scoring)."""
    return rules.scoring == "tai"


ROOM = RuleSet(
    name="taiwan16",
    preset=Rules(name="taiwan16", num_tile_types=NUM_TILES, hand_size=16, melds=5, flowers=NUM_FLOWERS, draw_at=16),
    summary="144 tiles with flowers, 16-tile hands, drawn at 16 left (SIMCAT paper)",
    uses=uses,
    engines=("python", "compiled"),
    game_hooks="mjenv.rulesets.taiwan16.game",
    step_hooks="mjenv.rulesets.taiwan16.step",
    views="mjenv.rulesets.taiwan16.views",
    wall="mjenv.rulesets.taiwan16.wall",
    render="mjenv.rulesets.taiwan16.render",
)
