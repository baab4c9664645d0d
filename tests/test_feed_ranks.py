"""static/js/feed.js explains a Zhejiang result by the classes' rank and names every class the engine makes: its
`ZHEJIANG_RANK` is the engine's `RANK` order (games/engine/variants/zhejiang.py) and its `CLASS_NAMES` name every
payout class of every game, so a class added to the engine without its place in the feed fails here."""

import json
import re
from pathlib import Path

from games.engine.variants import VARIANTS
from games.engine.variants.zhejiang import RANK

FEED = (Path(__file__).resolve().parents[1] / "static" / "js" / "feed.js").read_text()


def test_the_feeds_zhejiang_rank_is_the_engines():
    listed = re.search(r"const ZHEJIANG_RANK = (\[.*?\]);", FEED, re.S)
    assert listed, "feed.js lost its ZHEJIANG_RANK"
    assert json.loads(listed.group(1)) == sorted(RANK, key=RANK.get)


def test_the_feed_names_every_special_class():
    names = re.search(r"export const CLASS_NAMES = \(\) => \(\{(.*?)\}\);", FEED, re.S)
    assert names, "feed.js lost its CLASS_NAMES"
    named = set(re.findall(r'"?([\w-]+)"?: gettext\(', names.group(1)))
    classes = {cls for variant in VARIANTS.values() for cls in variant.payout_classes} - {"ordinary"}
    assert classes and classes <= named, sorted(classes - named)
