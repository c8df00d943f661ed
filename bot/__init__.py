"""Gamenight: a Discord bot for the office's card games."""
