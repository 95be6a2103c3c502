"""Tests of the pure team-match core (`teams/`)."""
