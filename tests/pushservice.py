"""Web Push for tests, both ends of it played here: a push service on 127.0.0.1 (threading http.server) that keeps
every message the site posts to it, the keys a browser makes when it subscribes, the browser's decryption of a
message (http_ece, RFC 8291) and the check of the site's VAPID signature (RFC 8292)."""

import base64
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_point(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def vapid_pair() -> tuple[str, str]:
    """(VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY) as docs/deploy.md makes them."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64(key.private_numbers().private_value.to_bytes(32, "big")), b64(public_point(key))


class Browser:
    """What a browser keeps for one push subscription: its ECDH P-256 key pair and its 16-byte auth secret."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = secrets.token_bytes(16)

    def subscription(self) -> dict:
        """As PushSubscription.toJSON() gives it."""
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64(public_point(self.key)), "auth": b64(self.auth)}}

    def decrypt(self, body: bytes) -> dict:
        import http_ece

        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


def vapid_claims(authorization: str, public_key: str) -> dict:
    """The claims of a `vapid t=<JWT>, k=<public key>` header, once its ES256 signature is checked against
    `public_key` (AssertionError otherwise)."""
    scheme, _sep, params = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"].rstrip("=") == public_key.rstrip("=")
    head, payload, signature = fields["t"].split(".")
    raw = unb64(signature)
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public_key))
    key.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
               f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))  # raises InvalidSignature
    assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    return json.loads(unb64(payload))


class PushService:
    """Takes every POST under /push/<name>, keeps (path, headers with lower-case names, body) and answers `status`."""

    def __init__(self):
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                service.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def endpoint(self, name: str) -> str:
        return f"{self.url}/push/{name}"

    def to(self, name: str) -> list[tuple[str, dict[str, str], bytes]]:
        return [r for r in self.received if r[0] == f"/push/{name}"]

    def wait(self, name: str, count: int = 1, timeout: float = 10.0) -> list[tuple[str, dict[str, str], bytes]]:
        deadline = time.monotonic() + timeout
        while len(self.to(name)) < count:
            assert time.monotonic() < deadline, f"{len(self.to(name))} of {count} messages for {name}"
            time.sleep(0.05)
        return self.to(name)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
