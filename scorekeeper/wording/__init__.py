"""Words the pages show for the game: problem messages, rule labels, history sentences."""
