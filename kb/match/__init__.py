"""Evaluating compiled checkers against facts: queries, conditions, scores, ranking."""
