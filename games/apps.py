from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # The receiver that sends a table's wake task (games/tasks.py, `wake_armed`), in every process.
        from games import tasks  # noqa: F401
