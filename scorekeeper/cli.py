"""Command-line tools for the host: ``flask --app scorekeeper announce``."""

import socket

import click
import segno
from flask import Flask


def lan_address() -> str:
    """The address other devices on the network reach this machine at (loopback if none)."""
    # Connecting a UDP socket sends nothing; it only asks the kernel which interface it would use.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def init_app(app: Flask) -> None:
    @app.cli.command("announce")
    @click.option("--port", default=8000, show_default=True, help="Port the server listens on.")
    def announce(port: int) -> None:
        """Print the address to open on a phone, as text and as a QR code."""
        url = f"http://{lan_address()}:{port}/"
        click.echo(
            "\nWizard Scorekeeper is starting. Open this on a phone on the same network:\n"
        )
        segno.make(url, error="m").terminal(compact=True)
        click.echo(f"\n  {url}\n")
