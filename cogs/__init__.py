"""Discord cogs, one per game plus the shared commands; each is thin over ``bot.engine``.

The bot finds them with :func:`bot.extensions.discover_cogs`. A cog never imports another.
"""
