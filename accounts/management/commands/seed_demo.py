"""Create a demo admin and a few demo players when the database has no users.

`make run` calls this so a newcomer can log in at once; it does nothing on a database
that already has accounts, so it never touches real data.
"""

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

DEMO_PASSWORD = "halfpoint-demo"
DEMO_PLAYERS = ["alice", "bob", "chen", "dara"]


class Command(BaseCommand):
    help = "Create a demo admin and demo players in an empty database, and print their logins."

    def handle(self, *args, **options) -> None:
        User = get_user_model()
        if User.objects.exists():
            self.stdout.write("Users exist already; no demo accounts created.")
            return
        with transaction.atomic():
            admin = User.objects.create_superuser("admin", "admin@halfpoint.localhost", DEMO_PASSWORD)
            EmailAddress.objects.create(user=admin, email=admin.email, verified=True, primary=True)
            for name in DEMO_PLAYERS:
                user = User.objects.create_user(name, f"{name}@halfpoint.localhost", DEMO_PASSWORD,
                                                display_name=name.capitalize())
                EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        self.stdout.write(self.style.SUCCESS(f"Demo accounts (password for all: {DEMO_PASSWORD}):"))
        self.stdout.write("  admin (superuser, /admin/)")
        for name in DEMO_PLAYERS:
            self.stdout.write(f"  {name}")
