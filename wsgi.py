"""The app for ``flask run`` and WSGI servers started in the checkout.

``flask`` finds this file in the current folder, so ``flask run`` and ``flask db upgrade``
need no ``--app``; ``gunicorn wsgi:app`` works too. It is not part of the wheel.
"""

from scorekeeper import create_app

app = create_app()
