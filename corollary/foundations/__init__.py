"""Foundations: every error class, keys and values, injected time, argument validators, files and formatting helpers."""
