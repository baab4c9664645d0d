"""`python manage.py chain_audit`: recompute every room's hash chain from its stored hands (docs/fairness.md, "The hash
chain") and print a JSON summary. Exit status 0 when every stored hand is as it was dealt, 1 with what no longer holds.
"""

import json

from django.core.management.base import BaseCommand

from games.models import Hand
from games.selectors import room_chain_problems


class Command(BaseCommand):
    help = "Check every room's hash chain of hands; print a JSON summary; exit 1 on any stored hand that was changed."

    def handle(self, *args, **options) -> None:
        rooms = list(Hand.objects.exclude(chain="").values_list("room", flat=True).distinct().order_by("room"))
        problems = {}
        for room_id in rooms:
            found = room_chain_problems(room_id)
            if found:
                problems[str(room_id)] = found
        report = {"ok": not problems, "rooms": len(rooms), "problems": problems}
        self.stdout.write(json.dumps(report, indent=2, sort_keys=True))
        if problems:
            raise SystemExit(1)
