"""Caches that make a warm `kb` call cheap; each is keyed by content and safe to delete."""
