from django.apps import AppConfig


class LoadgenConfig(AppConfig):
    name = "loadgen"
    verbose_name = "Load generator"
