"""Computed views of games: player statistics and charts (pure: no Flask, no database)."""
