from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # The engine's state copies through orjson: the same values, a tenth of the time (games/engine/codec.py).
        from games import fields
        from games.engine import codec

        codec.use(copy=fields.json_copy, key=fields.json_key)
        # The receiver that sends a table's wake task (games/tasks.py, `wake_armed`), in every process.
        from games import tasks  # noqa: F401
