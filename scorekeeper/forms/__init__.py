"""WTForms classes, one module per area: setup, the table, history filters, access.

Fields only parse; whether a value is allowed in the game is decided by
:mod:`scorekeeper.rules`, and :meth:`~scorekeeper.forms.base.Form.add_problems` puts its
answer next to the field concerned. CSRF comes with every ``FlaskForm``.
"""
