"""`python manage.py wallet_audit`: check every ledger invariant and print a JSON summary.

Exit status 0 when every check passed (or was skipped), 1 with the violations listed.
"""

import json

from django.core.management.base import BaseCommand

from wallets.audit import ledger_audit


class Command(BaseCommand):
    help = "Check every wallet ledger invariant; print a JSON summary; exit 1 on any violation."

    def handle(self, *args, **options) -> None:
        report = ledger_audit()
        self.stdout.write(json.dumps(report, indent=2, sort_keys=True, default=str))
        if not report["ok"]:
            raise SystemExit(1)
