"""Addresses other phones reach this app at, and QR codes of them (for the live view, seat
links and an event's table cards). Not a blueprint: every blueprint may use it.
"""

import contextlib
import ipaddress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import current_app, request, url_for

# The address `flask announce` printed at start (the LAN address), kept in the instance folder.
ANNOUNCED_FILE = "announced_url"


def remember_announced(instance_path: str, url: str) -> None:
    """Keep the address announced at start, for links opened at localhost (best effort)."""
    with contextlib.suppress(OSError):
        (Path(instance_path) / ANNOUNCED_FILE).write_text(url + "\n", encoding="utf-8")


def _announced() -> str | None:
    try:
        text = (Path(current_app.instance_path) / ANNOUNCED_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text.strip() or None


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _port(parts: Any) -> int:
    try:
        port = parts.port
    except ValueError:
        return -1
    return port or (443 if parts.scheme == "https" else 80)


def public_base() -> str | None:
    """The address other phones reach this app at, when the request's own is not it:
    ``PUBLIC_URL`` when the host set one, else — for a page opened at localhost — the address
    ``flask announce`` printed for the same port. None: the request's address is right (behind
    a proxy, ProxyFix made it so)."""
    if configured := current_app.config.get("PUBLIC_URL"):
        return str(configured)
    here = urlsplit(request.host_url)
    if not _is_loopback(here.hostname):
        return None
    announced = _announced()
    if announced is None:
        return None
    there = urlsplit(announced)
    if there.scheme not in ("http", "https") or not there.hostname:
        return None
    # An address announced for another server (another port) is not this one's.
    return announced if _port(there) == _port(here) else None


def public_url(endpoint: str, **values: Any) -> str:
    """An absolute link for another phone (see :func:`public_base`)."""
    base = public_base()
    if base is None:
        return url_for(endpoint, _external=True, **values)
    path = url_for(endpoint, **values)
    root = request.script_root
    if root and path.startswith(root):
        path = path[len(root) :]
    return base.rstrip("/") + path


def qr_svg(url: str | None) -> str | None:
    """A QR code of ``url`` as inline SVG (None for no link)."""
    # No fixed size: the SVG scales to its box through its viewBox.
    if url is None:
        return None
    return segno.make(url, error="m").svg_inline(
        border=2, dark="#1d232b", light="#ffffff", omitsize=True
    )
