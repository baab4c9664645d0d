"""Overrides of Django's locale formats (settings.FORMAT_MODULE_PATH): only what differs from Django's own, which
fills in the rest."""
