"""The Celery app: timeouts, bot turns and the deadline sweeper run here."""

import os
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("halfpoint")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The development broker keeps its messages in a folder; it must exist before anyone sends.
for folder in (app.conf.broker_transport_options or {}).values():
    if isinstance(folder, str) and folder.startswith("/"):
        Path(folder).mkdir(parents=True, exist_ok=True)
