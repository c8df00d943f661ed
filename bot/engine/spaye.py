"""Placeholder until the spaye engine lands."""
