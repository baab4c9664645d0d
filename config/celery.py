"""The Celery app: timeouts, bot turns and the deadline sweeper run here."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("halfpoint")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
