"""Discord cogs, one per game plus the shared commands; each is thin over bot.engine."""
