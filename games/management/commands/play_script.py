"""``python manage.py play_script FILE.json``: play one scripted hand and print the result as JSON.

A thin shell over games.engine.script.run_script; an illegal action or a malformed file prints
``{"error": {"code", "message"}}`` and exits with status 2, never a traceback.
"""

import json
import sys

from django.core.management.base import BaseCommand

from games.engine.script import run_script_safe


class Command(BaseCommand):
    help = "Play one hand from a JSON script and print the result as JSON."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the script, or - for standard input")

    def handle(self, *args, **options):
        try:
            if options["file"] == "-":
                data = json.load(sys.stdin)
            else:
                with open(options["file"], encoding="utf-8") as f:
                    data = json.load(f)
        except (OSError, ValueError) as e:
            out, status = {"error": {"code": "bad_script", "message": f"Cannot read the script: {e}"}}, 2
        else:
            out, status = run_script_safe(data)
        self.stdout.write(json.dumps(out, indent=2, ensure_ascii=False))
        if status:
            sys.exit(status)
