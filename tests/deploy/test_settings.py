"""The settings past one machine, as each process reads them from its environment: REDIS_URL naming several Redis
servers, DATABASE_REPLICA_URL a read replica; and deploy/nginx/halfpoint.conf as nginx reads it."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.deploy.stack import nginx_config
from tests.servers import ROOT, free_port

SHOW = """
import json
from django.conf import settings as s
print(json.dumps({"layer": s.CHANNEL_LAYERS["default"], "cache": s.CACHES["default"], "broker": s.CELERY_BROKER_URL,
                  "databases": s.DATABASES, "routers": s.DATABASE_ROUTERS, "middleware": s.MIDDLEWARE}, default=str))
"""


def settings_with(**env: str) -> dict:
    """config.settings in a fresh process with `env` over this one's (settings are read once, at import)."""
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()\n" + SHOW], cwd=ROOT, text=True,
                          capture_output=True, env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("layer", ["core", "pubsub"])
def test_several_redis_servers_shard_the_channel_layer_and_the_first_one_is_cache_and_broker(layer):
    first, second = "redis://10.0.0.31:6379/0", "redis://10.0.0.32:6380/1"
    found = settings_with(REDIS_URL=f"{first}, {second}", REDIS_CHANNEL_LAYER=layer)
    assert found["layer"]["CONFIG"]["hosts"] == [first, second]
    assert (found["cache"]["LOCATION"], found["broker"]) == (first, first)


def test_one_redis_server_is_the_whole_layer():
    assert settings_with(REDIS_URL="redis://127.0.0.1:6379/0")["layer"]["CONFIG"]["hosts"] == ["redis://127.0.0.1:6379/0"]


def test_a_replica_url_adds_the_replica_alias_and_the_middleware_that_pins_a_writer_to_the_primary():
    found = settings_with(DATABASE_URL="postgres://halfpoint:pw@10.0.0.20:5432/halfpoint", DB_POOL="1",
                          DATABASE_REPLICA_URL="postgres://halfpoint:pw@10.0.0.21:5432/halfpoint")
    replica = found["databases"]["replica"]
    assert (replica["HOST"], replica["NAME"], replica["TEST"]["MIRROR"]) == ("10.0.0.21", "halfpoint", "default")
    assert replica["OPTIONS"]["pool"] == found["databases"]["default"]["OPTIONS"]["pool"]
    assert "config.db_router.PrimaryPinMiddleware" in found["middleware"]
    assert found["routers"] == ["config.db_router.ReplicaRouter"]

    without = settings_with(DATABASE_REPLICA_URL="")
    assert "replica" not in without["databases"]
    assert "config.db_router.PrimaryPinMiddleware" not in without["middleware"]


@pytest.mark.skipif(not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")),
                    reason="needs Debian's nginx: `make deploy-tools` installs it")
def test_the_nginx_site_is_valid_for_nginx(tmp_path):
    tmp_path.chmod(0o755)
    argv = nginx_config(tmp_path, free_port(), free_port())
    check = subprocess.run([*argv, "-t"], capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stderr
