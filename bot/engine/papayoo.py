"""Placeholder until the papayoo engine lands."""
