"""The games, registered by slug (like python-chess variant boards): each is a small set of hooks."""

from .ban_luck import BanLuck
from .base import Eval, Variant
from .seven_half import SevenHalf
from .ten_half import TenHalf
from .zhejiang import Zhejiang

VARIANTS: dict[str, Variant] = {v.slug: v for v in (TenHalf(), SevenHalf(), Zhejiang(), BanLuck())}


def find_variant(slug: str) -> Variant:
    return VARIANTS[slug]


__all__ = ["VARIANTS", "Eval", "Variant", "find_variant"]
